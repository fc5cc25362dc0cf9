import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, openDatabase, physicalRemoval, type StorageOptions, subjectData } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { randomPort, spawnServer, spawnWorker, stopProcess, until, untilHealthy } from "@als/test-support/server-process.ts";
import { filesHolding, statisticsHolding } from "@als/test-support/subject-scan.ts";
import { createTenant, type Tenant } from "@als/test-support/tenants.ts";
import type { Subprocess } from "bun";

// An erasure's bytes: the subject's rows, published through the API and analyzed into the planner's
// statistics, are erased; the process that would remove their bytes is killed (CRASH_POINTS) just
// before the pass, when the scan still finds the subject; started again, the pass completes and the
// scan finds nothing. Embedded: every file under the data directory (tables, indexes, WAL, the
// vector index) is read for the subject's id and a phrase of theirs. Full: pg_statistic is read, and
// pgstattuple counts the dead row versions of the tables the erasure wrote.

const dataDir = mkdtempSync(join(tmpdir(), "als-physical-removal-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const SUBJECT = `subject-${crypto.randomUUID().slice(0, 8)}`;
const NEIGHBOUR = `neighbour-${crypto.randomUUID().slice(0, 8)}`;
/** Lowercase and stem-proof, so it reads the same in the text and in its full-text lexemes. */
const phraseOf = (user: string) => `ferret named zorbleflax${user.replace(/\W/g, "")}`;

interface Deployment {
  url: string;
  storage: StorageOptions;
  start(crashPoints?: string): Promise<void>;
  crashed(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

async function inspect<T>(storage: StorageOptions, read: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(storage);
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

function embeddedDeployment(): Deployment {
  const port = randomPort();
  let server: Subprocess | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    storage: { kind: "pglite", dataDir: join(dataDir, "pglite") },
    async start(crashPoints = "") {
      server = spawnServer(port, { DATA_DIR: dataDir, CRASH_POINTS: crashPoints });
    },
    crashed: async () => void (await server!.exited),
    stop: () => stopProcess(server!, "SIGTERM"),
    async close() {
      if (server && server.exitCode === null && server.signalCode === null) await stopProcess(server, "SIGKILL");
    },
  };
}

async function fullDeployment(): Promise<Deployment> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const temporal = process.env.TEMPORAL_ADDRESS;
  if (!serverUrl || !temporal) throw new Error("TEST_MODE=full needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test sets them)");
  const database = await createFreshDatabase(serverUrl);
  const env = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporal, TEMPORAL_TASK_QUEUE: `physical-removal-${crypto.randomUUID()}` };
  const port = randomPort();
  let server: Subprocess | undefined;
  let worker: Subprocess | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    storage: { kind: "postgres", url: database.url },
    async start(crashPoints = "") {
      server ??= spawnServer(port, env);
      worker = spawnWorker({ ...env, CRASH_POINTS: crashPoints });
    },
    crashed: async () => void (await worker!.exited),
    stop: () => stopProcess(worker!, "SIGTERM"),
    async close() {
      if (worker && worker.exitCode === null && worker.signalCode === null) await stopProcess(worker, "SIGTERM");
      if (server) await stopProcess(server, "SIGTERM");
      await database.drop();
    },
  };
}

async function call(url: string, method: string, path: string, token: string, body?: object) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body && { "content-type": "application/json" }) },
    ...(body && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function publish(deployment: Deployment, tenant: Tenant, user: string) {
  for (let turn = 0; turn < 3; turn++) {
    const published = await call(deployment.url, "POST", "/api/publish_interaction", tenant.fullKey, {
      user_id: user,
      session_id: `${user}-session-${turn}`,
      interaction_data_list: [
        { role: "User", content: `I am ${user} and I keep a ${phraseOf(user)} (turn ${turn})` },
        { role: "Agent", content: "Noted." },
      ],
    });
    expect(published.status).toBe(200);
  }
  const profile = await call(deployment.url, "POST", "/api/add_user_profile", tenant.fullKey, {
    user_profiles: [{ user_id: user, content: `${user} owns a ${phraseOf(user)}` }],
  });
  expect(profile.status).toBe(200);
}

/** Where the subject still is: files (embedded), statistics and dead row versions (full). */
async function traces(
  deployment: Deployment,
  needles: string[],
): Promise<{ files?: Record<string, string[]>; statistics?: Record<string, string[]>; dead?: Record<string, number> }> {
  if (testMode === "embedded") return { files: await filesHolding(dataDir, needles) };
  return inspect(deployment.storage, async (db) => {
    await db.exec("CREATE EXTENSION IF NOT EXISTS pgstattuple");
    const dead: Record<string, number> = {};
    for (const table of subjectData.PHYSICAL_REMOVAL_TABLES) {
      const [row] = await db.query<{ dead_tuple_count: number }>("SELECT dead_tuple_count FROM pgstattuple($1::regclass)", [table]);
      if (row!.dead_tuple_count > 0) dead[table] = row!.dead_tuple_count;
    }
    return { statistics: await statisticsHolding(db, needles), dead };
  });
}

test(`an erasure killed before its physical removal leaves the subject on disk until the pass, then nowhere (${testMode})`, async () => {
  const deployment = testMode === "embedded" ? embeddedDeployment() : await fullDeployment();
  try {
    const tenant: Tenant = await inspect(deployment.storage, (db) => createTenant({ db, now: () => Math.floor(Date.now() / 1000) }, "bytes"));
    const healthy = () => untilHealthy(deployment.url);
    await deployment.start("purge.before_physical_removal");
    await healthy();
    await publish(deployment, tenant, SUBJECT);
    await publish(deployment, tenant, NEIGHBOUR);
    // The planner's sampled statistics quote the subject, as after any ANALYZE (autovacuum's, or the
    // reconciler's). Embedded, the server holds the files: it stops for the statement.
    if (testMode === "embedded") await deployment.stop();
    await inspect(deployment.storage, (db) => db.exec("ANALYZE"));
    if (testMode === "embedded") {
      await deployment.start("purge.before_physical_removal");
      await healthy();
    }

    const erase = { user_id: SUBJECT, request_id: "ticket-bytes" };
    await call(deployment.url, "POST", "/api/governance/erase-user", tenant.governanceSession, erase).catch(() => undefined);
    await deployment.crashed();

    // The rows are gone, the bytes are not: the scan can fail.
    const needles = [SUBJECT, phraseOf(SUBJECT)];
    const before = await traces(deployment, needles);
    if (testMode === "embedded") expect(Object.keys(before.files!).length).toBeGreaterThan(0);
    else {
      expect(Object.keys(before.statistics!).length).toBeGreaterThan(0);
      // Reads prune some dead versions on the way (their pages keep the bytes as free space); the
      // rest wait for VACUUM.
      expect(Object.keys(before.dead!).length).toBeGreaterThan(0);
    }

    await deployment.start();
    const status = await until(async () => {
      const again = await call(deployment.url, "POST", "/api/governance/erase-user", tenant.governanceSession, erase);
      return again.status === 202 && again.body.phase === "done" ? again.body : undefined;
    }, 120_000);
    expect(status).toMatchObject({ status: "complete", created: false, phase: "done" });
    expect(status.physically_removed_at).toBeGreaterThanOrEqual(status.completed_at);
    await deployment.stop();

    const after = await traces(deployment, needles);
    if (testMode === "embedded") expect(after.files).toEqual({});
    else {
      // The pass's own stamp of the operation (phase done) is written after its vacuum: it leaves one
      // dead version of the operation's row, which held no user id since the rows went.
      const { purge_operations: stamped = 0, ...dead } = after.dead!;
      expect({ statistics: after.statistics, dead, stamped: stamped <= 1 }).toEqual({ statistics: {}, dead: {}, stamped: true });
    }
    // The scan reads where the data is: the neighbour's rows are found in the same places.
    const neighbour = await traces(deployment, [NEIGHBOUR, phraseOf(NEIGHBOUR)]);
    if (testMode === "embedded") expect(Object.keys(neighbour.files!).length).toBeGreaterThan(0);
    else expect(Object.keys(neighbour.statistics!).length).toBeGreaterThan(0);
    const passMs = await inspect(deployment.storage, (db) => physicalRemoval.lastPassDurationMs(db));
    console.log(`physical removal pass (${testMode}): ${passMs} ms; before: ${JSON.stringify(before)}`);
    expect(passMs).toBeGreaterThan(0);
  } finally {
    await deployment.close();
  }
}, 480_000);
