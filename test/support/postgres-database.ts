import { randomUUID } from "node:crypto";
import { migrationsDigest, openDatabase } from "@als/db";
import postgres from "postgres";

/**
 * A new database on the PostgreSQL server of `serverUrl`, so a test file owns its rows; `drop`
 * removes it again. It is a copy of a migrated, empty database (see migratedTemplate): copying
 * takes about 0.2 s, migrating a new database about 0.8 s, and a full run makes a few hundred.
 */
export async function createFreshDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `test_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${await migratedTemplate(serverUrl, admin)}`);
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const withDatabase = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/** This process's template of each server (the suites of a run share the server's). */
const templates = new Map<string, Promise<string>>();

/**
 * The name of a database on the server that the migrations made and nothing else touched, named
 * for the migrations' digest. The first process of a run to need it makes it, holding an advisory
 * lock so the suites running beside it wait for it rather than make their own; it is migrated
 * under another name and renamed when complete, so a run killed while making it leaves no half
 * template. Templates of other migrations are dropped then: the test server keeps one.
 */
function migratedTemplate(serverUrl: string, admin: postgres.Sql): Promise<string> {
  let template = templates.get(serverUrl);
  if (!template) {
    template = makeTemplate(serverUrl, admin);
    template.catch(() => templates.delete(serverUrl));
    templates.set(serverUrl, template);
  }
  return template;
}

async function makeTemplate(serverUrl: string, admin: postgres.Sql): Promise<string> {
  const name = `als_template_${(await migrationsDigest()).slice(0, 16)}`;
  // One connection (max: 1): the session lock is held and released on the same one.
  await admin`SELECT pg_advisory_lock(hashtext('als:test-template'))`;
  try {
    if ((await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`).length > 0) return name;
    for (const { datname } of await admin<{ datname: string }[]>`SELECT datname FROM pg_database WHERE datname LIKE 'als\\_template\\_%'`) {
      await admin.unsafe(`DROP DATABASE ${datname} WITH (FORCE)`);
    }
    const building = `${name}_building`;
    await admin.unsafe(`CREATE DATABASE ${building}`);
    const db = await openDatabase({ kind: "postgres", url: withDatabase(serverUrl, building), maxConnections: 1 });
    await db.close();
    // A connection the driver has closed may not have left the server yet: ended, then renamed again.
    await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`).catch(async () => {
      await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${building}`;
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`);
    });
    return name;
  } finally {
    await admin`SELECT pg_advisory_unlock(hashtext('als:test-template'))`;
  }
}
