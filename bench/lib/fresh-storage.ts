import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import postgres from "postgres";
import type { StorageMode } from "./seed.ts";

/**
 * An empty database for one run of a bench that starts the real service: a temporary PGlite
 * directory (embedded), or a new database `<name>_<hex>` on the PostgreSQL server (full). `env` is
 * what the service's settings need to open it; `drop` removes it.
 */
export async function freshServiceStorage(name: string, mode: StorageMode, serverUrl: string | undefined) {
  if (mode === "embedded") {
    const dataDir = await mkdtemp(`${tmpdir()}/als-${name.replaceAll("_", "-")}-`);
    return { env: { DATA_DIR: dataDir }, location: `PGlite in ${dataDir}/pglite`, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const database = `bench_${name}_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${database}`);
  const url = new URL(serverUrl!);
  url.pathname = `/${database}`;
  return {
    env: { DATABASE_URL: url.toString() },
    location: `PostgreSQL ${url.host}/${database}`,
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}
