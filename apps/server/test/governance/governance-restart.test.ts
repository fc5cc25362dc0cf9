import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, openDatabase, type StorageOptions } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { randomPort, spawnServer, spawnWorker, stopProcess, until, untilHealthy } from "@als/test-support/server-process.ts";
import { createTenant, type Tenant } from "@als/test-support/tenants.ts";
import type { Subprocess } from "bun";

// An erasure whose process is killed (SIGKILL, by the CRASH_POINTS setting) right after the barrier,
// in the middle of the deletes, and just before the audit write; started again, the operation
// completes exactly once: one audit row, the subject gone. Embedded: the server runs the erasure;
// full: the worker does (a Temporal workflow), and the worker is what dies.

const CRASH_POINTS = ["purge.after_barrier", "purge.deleted_interactions", "purge.before_audit"];

const dataDir = mkdtempSync(join(tmpdir(), "als-governance-restart-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Deployment {
  url: string;
  storage: StorageOptions;
  /** Starts the processes; `crashPoints` go to the one that runs the erasure. */
  start(crashPoints?: string): Promise<void>;
  /** Resolves when the process that runs the erasure has died. */
  crashed(): Promise<void>;
  stop(): Promise<void>;
  /** The database, for the checks; embedded, only while no server runs. */
  inspect<T>(read: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

async function inspectStorage<T>(storage: StorageOptions, read: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(storage);
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

async function embeddedDeployment(): Promise<Deployment> {
  const port = randomPort();
  const storage: StorageOptions = { kind: "pglite", dataDir: join(dataDir, "pglite") };
  let server: Subprocess | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    storage,
    async start(crashPoints = "") {
      server = spawnServer(port, { DATA_DIR: dataDir, CRASH_POINTS: crashPoints });
    },
    crashed: async () => void (await server!.exited),
    stop: () => stopProcess(server!, "SIGTERM"),
    inspect: (read) => inspectStorage(storage, read),
    async close() {},
  };
}

async function fullDeployment(): Promise<Deployment> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const temporal = process.env.TEMPORAL_ADDRESS;
  if (!serverUrl || !temporal) throw new Error("TEST_MODE=full needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test sets them)");
  const database = await createFreshDatabase(serverUrl);
  const env = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporal, TEMPORAL_TASK_QUEUE: `governance-restart-${crypto.randomUUID()}` };
  const port = randomPort();
  const storage: StorageOptions = { kind: "postgres", url: database.url };
  let server: Subprocess | undefined;
  let worker: Subprocess | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    storage,
    async start(crashPoints = "") {
      server ??= spawnServer(port, env);
      worker = spawnWorker({ ...env, CRASH_POINTS: crashPoints });
    },
    crashed: async () => void (await worker!.exited),
    async stop() {
      await stopProcess(worker!, "SIGTERM");
    },
    inspect: (read) => inspectStorage(storage, read),
    async close() {
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

test(`an erasure killed after the barrier, mid-delete and before the audit completes exactly once after restart (${testMode})`, async () => {
  const deployment = testMode === "embedded" ? await embeddedDeployment() : await fullDeployment();
  try {
    const tenant: Tenant = await deployment.inspect((db) => createTenant({ db, now: () => Math.floor(Date.now() / 1000) }, "restart"));
    const purgeIds: string[] = [];
    for (const point of CRASH_POINTS) {
      const subject = `crash-${point.replace(/\W/g, "-")}`;
      await deployment.start(point);
      await untilHealthy(deployment.url);
      const published = await call(deployment.url, "POST", "/api/publish_interaction", tenant.fullKey, {
        user_id: subject,
        session_id: `${subject}-session`,
        interaction_data_list: [{ role: "User", content: `I am ${subject}` }],
      });
      expect(published.status).toBe(200);
      const erase = { user_id: subject, request_id: `ticket-${point}` };
      // Embedded, the server may die before it answers: the operation was committed first, and the
      // same request after the restart returns it.
      await call(deployment.url, "POST", "/api/governance/erase-user", tenant.governanceSession, erase).catch(() => undefined);
      await deployment.crashed();
      await deployment.start();
      const answer = await until(async () => {
        const again = await call(deployment.url, "POST", "/api/governance/erase-user", tenant.governanceSession, erase);
        return again.status === 202 ? again.body : undefined;
      }, 60_000);
      expect(answer.created).toBe(false);
      // Full mode waits for Temporal to notice the dead worker (the activity's heartbeat timeout).
      const done = await until(async () => {
        const status = await call(deployment.url, "GET", `/api/governance/purge-operations/${answer.purge_id}`, tenant.governanceSession);
        return status.body.status === "complete" || status.body.status === "failed" ? status.body : undefined;
      }, 120_000);
      expect(done).toMatchObject({ status: "complete", error_code: null, deleted_counts: { interactions: 1, requests: 1 } });
      purgeIds.push(answer.purge_id);
      await deployment.stop();
    }
    const stored = await deployment.inspect(async (db) => ({
      operations: await db.query<{ purge_id: string; status: string; attempts: number; subject_user_id: string | null }>(
        "SELECT purge_id, status, attempts, subject_user_id FROM purge_operations ORDER BY created_at, purge_id",
      ),
      audits: await db.query<{ purge_id: string }>("SELECT purge_id FROM governance_audit WHERE action = 'erase_user' ORDER BY purge_id"),
      left: await db.query("SELECT user_id FROM interactions WHERE user_id LIKE 'crash-%'"),
    }));
    expect(stored.audits.map((row) => row.purge_id)).toEqual([...purgeIds].sort());
    expect(stored.operations.map(({ status, subject_user_id }) => ({ status, subject_user_id }))).toEqual(
      purgeIds.map(() => ({ status: "succeeded", subject_user_id: null })),
    );
    // The crashed attempt and the one that finished.
    expect(stored.operations.every((operation) => operation.attempts >= 2)).toBe(true);
    expect(stored.left).toEqual([]);
  } finally {
    await deployment.close();
  }
}, 480_000);
