import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkStorage, classifyStorageError, type Database, openDatabase, type StorageTimeouts, StorageUnavailableError } from "@als/db";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { startTcpProxy } from "@als/test-support/tcp-proxy.ts";
import postgres from "postgres";
import { openPglite } from "../src/drivers/pglite.ts";
import { openPostgres } from "../src/drivers/postgres.ts";

const serverUrl = process.env.TEST_DATABASE_URL;

/** What `work` rejected with; fails the test when it resolved. */
async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure, got an answer");
}

/** The StorageUnavailableError `work` rejected with, and how long that took. */
async function storageFailureOf(work: Promise<unknown>): Promise<{ error: StorageUnavailableError; cause: { code?: string }; ms: number }> {
  const started = performance.now();
  const error = await failureOf(work);
  expect(error).toBeInstanceOf(StorageUnavailableError);
  return { error: error as StorageUnavailableError, cause: (error as Error).cause as { code?: string }, ms: performance.now() - started };
}

const urlOf = (database: string) => {
  const url = new URL(serverUrl!);
  url.pathname = `/${database}`;
  return url.toString();
};

describe("classifyStorageError", () => {
  test("names the reason of the codes that mean the storage cannot serve now", () => {
    const reasons = Object.fromEntries(
      [
        "ECONNRESET",
        "ECONNREFUSED",
        "CONNECTION_CLOSED",
        "08006",
        "57P01",
        "3D000",
        "57P03",
        "25006",
        "53100",
        "ENOSPC",
        "53200",
        "53300",
        "57014",
        "CONNECT_TIMEOUT",
      ].map((code) => [code, classifyStorageError({ code })]),
    );
    expect(reasons).toEqual({
      ECONNRESET: "connection",
      ECONNREFUSED: "connection",
      CONNECTION_CLOSED: "connection",
      "08006": "connection",
      "57P01": "connection",
      "3D000": "unavailable",
      "57P03": "unavailable",
      "25006": "read_only",
      "53100": "disk_full",
      ENOSPC: "disk_full",
      "53200": "resources",
      "53300": "resources",
      "57014": "timeout",
      CONNECT_TIMEOUT: "timeout",
    });
  });

  test("leaves faults of the statement alone: they are bugs or bad input, not an outage", () => {
    for (const code of ["23505", "42601", "42P01", "22P02", "40001"]) expect(classifyStorageError({ code })).toBeUndefined();
    // 55000 outside session start is a misused sequence or cursor, not a database refusing sessions.
    expect(classifyStorageError({ code: "55000", severity: "ERROR" })).toBeUndefined();
    expect(classifyStorageError({ code: "55000", severity: "FATAL" })).toBe("unavailable");
    expect(classifyStorageError(new TypeError("x is not a function"))).toBeUndefined();
  });
});

describe.skipIf(!serverUrl)("storage failures of a real PostgreSQL", () => {
  const admin = serverUrl ? postgres(serverUrl, { max: 2, onnotice: () => {} }) : (undefined as never);
  const fresh: { drop: () => Promise<void> }[] = [];
  const opened: Database[] = [];
  const open = (url: string, timeouts?: Partial<StorageTimeouts>, maxConnections?: number) => {
    const db = openPostgres({
      url,
      timeouts: { connectMs: 2_000, acquireMs: 2_000, statementMs: 5_000, ...timeouts },
      ...(maxConnections && { maxConnections }),
    });
    opened.push(db);
    return db;
  };
  /** A new migrated database; its URL. */
  const migrated = async () => {
    const database = await createFreshDatabase(serverUrl!);
    fresh.push(database);
    const db = await openDatabase({ kind: "postgres", url: database.url });
    await db.close();
    return database.url;
  };

  afterAll(async () => {
    for (const db of opened) await db.close().catch(() => {});
    for (const database of fresh) await database.drop();
    await admin.end();
  });

  test("a database that does not exist answers unavailable (3D000)", async () => {
    const { error, cause } = await storageFailureOf(open(urlOf("no_such_database_here")).query("SELECT 1"));
    expect(error.reason).toBe("unavailable");
    expect(cause.code).toBe("3D000");
  });

  test("a database that refuses connections answers unavailable (55000)", async () => {
    const name = `refusing_${crypto.randomUUID().replaceAll("-", "")}`;
    await admin.unsafe(`CREATE DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    fresh.push({ drop: () => admin.unsafe(`DROP DATABASE IF EXISTS ${name}`).then(() => {}) });
    const { error, cause } = await storageFailureOf(open(urlOf(name)).query("SELECT 1"));
    expect(error.reason).toBe("unavailable");
    expect(cause.code).toBe("55000");
  });

  test("a read-only database answers read_only (25006) to writes and to the storage check, and still serves reads", async () => {
    const url = await migrated();
    await admin.unsafe(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_read_only = on`);
    const db = open(url);
    const { error, cause } = await storageFailureOf(db.query("UPDATE storage_probe SET probed_at = now()"));
    expect([error.reason, cause.code]).toEqual(["read_only", "25006"]);
    expect(((await failureOf(checkStorage(db, 2_000))) as StorageUnavailableError).reason).toBe("read_only");
    expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  test("a statement past statement_timeout answers timeout (57014), the session's or its own", async () => {
    const db = open(serverUrl!, { statementMs: 300 });
    const slow = await storageFailureOf(db.query("SELECT pg_sleep(2)"));
    expect([slow.error.reason, slow.cause.code]).toEqual(["timeout", "57014"]);
    expect(slow.ms).toBeLessThan(1_500);
    const own = await storageFailureOf(
      db.transaction(async (tx) => {
        await tx.exec("SET LOCAL statement_timeout = 1");
        await tx.query("SELECT pg_sleep(1)");
      }),
    );
    expect([own.error.reason, own.cause.code]).toEqual(["timeout", "57014"]);
  });

  test("a terminated backend answers connection, and the next statement gets a new connection", async () => {
    const db = open(serverUrl!);
    const [{ pid }] = (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")) as [{ pid: number }];
    const sleeping = db.query("SELECT pg_sleep(3)");
    await Bun.sleep(200);
    await admin`SELECT pg_terminate_backend(${pid})`;
    const { error, cause } = await storageFailureOf(sleeping);
    expect(error.reason).toBe("connection");
    expect(["57P01", "CONNECTION_CLOSED"]).toContain(cause.code!);
    expect(await db.query("SELECT 2 AS two")).toEqual([{ two: 2 }]);
  });

  test("a refused connection answers connection at once", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const { port } = listener;
    listener.stop(true);
    const { error, ms } = await storageFailureOf(open(`postgres://postgres@127.0.0.1:${port}/als`).query("SELECT 1"));
    expect(error.reason).toBe("connection");
    expect(ms).toBeLessThan(1_000);
  });

  test("a server that never answers the handshake answers timeout after connectMs", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const { error, ms } = await storageFailureOf(open(`postgres://postgres@127.0.0.1:${silent.port}/als`, { connectMs: 300 }).query("SELECT 1"));
      expect(error.reason).toBe("timeout");
      expect(ms).toBeLessThan(1_500);
    } finally {
      silent.stop(true);
    }
  });

  test("a statement that finds no pooled connection within acquireMs answers timeout and never runs", async () => {
    const url = await migrated();
    const db = open(url, { acquireMs: 300 }, 1);
    await db.exec("CREATE TABLE acquired (n int)");
    const holding = db.transaction(async (tx) => {
      await tx.query("SELECT pg_sleep(1)");
    });
    await Bun.sleep(50);
    const { error, ms } = await storageFailureOf(db.query("INSERT INTO acquired VALUES (1)"));
    expect(error.reason).toBe("timeout");
    expect(ms).toBeLessThan(1_000);
    const notStarted = await storageFailureOf(db.transaction(async (tx) => tx.query("INSERT INTO acquired VALUES (2)")));
    expect(notStarted.error.reason).toBe("timeout");
    await holding;
    await Bun.sleep(100);
    expect(await db.query("SELECT count(*)::int AS rows FROM acquired")).toEqual([{ rows: 0 }]);
  });

  test("a statement cut off by a partition answers timeout within its bound, and the pool recovers when the path does", async () => {
    const target = new URL(serverUrl!);
    const proxy = startTcpProxy({ host: target.hostname, port: Number(target.port) });
    try {
      const through = new URL(serverUrl!);
      through.port = String(proxy.port);
      const timeouts = { connectMs: 500, acquireMs: 500, statementMs: 1_000 };
      const db = open(through.toString(), timeouts);
      expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      proxy.hold();
      const stuck = await storageFailureOf(db.query("SELECT 2"));
      expect(stuck.error.reason).toBe("timeout");
      // acquireMs + statementMs + the two seconds' grace the client gives the server's own timeout.
      expect(stuck.ms).toBeLessThan(timeouts.acquireMs + timeouts.statementMs + 2_000 + 500);
      const transaction = await storageFailureOf(db.transaction(async (tx) => tx.query("SELECT 3")));
      expect(transaction.error.reason).toBe("timeout");
      expect(transaction.ms).toBeLessThan(timeouts.acquireMs + 500);
      proxy.release();
      // Caught, so that a failure names this line and the error.
      expect(await db.query("SELECT 4 AS four").catch((error: unknown) => error)).toEqual([{ four: 4 }]);
      proxy.reset();
      // A reset connection fails its statement at once (connection), and the pool recovers: each
      // connection it held may fail one statement before the client has seen its socket close (on a
      // loaded machine, more than one), then a statement gets a new connection and succeeds.
      const started = performance.now();
      let answer: unknown;
      for (let attempt = 0; attempt < 5; attempt++) {
        answer = await db.query("SELECT 5 AS five").catch((error: unknown) => error);
        if (!(answer instanceof StorageUnavailableError)) break;
        expect(answer.reason).toBe("connection");
      }
      expect(answer).toEqual([{ five: 5 }]);
      // None of it waited out a bound.
      expect(performance.now() - started).toBeLessThan(timeouts.connectMs + timeouts.statementMs);
    } finally {
      proxy.stop();
    }
  });

  test("an error of the statement itself is passed through, not reported as an outage", async () => {
    const db = open(await migrated());
    const duplicate = await failureOf(db.query("INSERT INTO storage_probe DEFAULT VALUES"));
    expect(duplicate).not.toBeInstanceOf(StorageUnavailableError);
    expect((duplicate as { code: string }).code).toBe("23505");
  });

  test("checkStorage passes on a writable database, keeps nothing, and answers timeout within its bound when the probe cannot write", async () => {
    const url = await migrated();
    const db = open(url);
    await checkStorage(db, 2_000);
    expect(await db.query("SELECT count(*)::int AS rows FROM storage_probe")).toEqual([{ rows: 1 }]);
    const locker = postgres(url, { max: 1, onnotice: () => {} });
    try {
      let locked: () => void = () => {};
      const lockHeld = new Promise<void>((resolve) => {
        locked = resolve;
      });
      let unlock: () => void = () => {};
      const holding = locker.begin(async (tx) => {
        await tx`LOCK TABLE storage_probe IN ACCESS EXCLUSIVE MODE`;
        locked();
        await new Promise<void>((resolve) => {
          unlock = resolve;
        });
      });
      await lockHeld;
      const { error, ms } = await storageFailureOf(checkStorage(db, 300));
      expect(error.reason).toBe("timeout");
      expect(ms).toBeLessThan(1_000);
      unlock();
      await holding;
    } finally {
      await locker.end();
    }
    await checkStorage(db, 2_000);
  });
});

describe("storage failures of PGlite", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openPglite({ timeouts: { connectMs: 1_000, acquireMs: 200, statementMs: 1_000 } });
    await db.exec("CREATE TABLE storage_probe (singleton boolean PRIMARY KEY DEFAULT true, probed_at timestamptz NOT NULL DEFAULT now())");
    await db.exec("INSERT INTO storage_probe DEFAULT VALUES");
  });

  test("checkStorage passes and keeps nothing", async () => {
    const [before] = await db.query<{ probed_at: string }>("SELECT probed_at::text FROM storage_probe");
    await checkStorage(db, 1_000);
    expect(await db.query<{ probed_at: string }>("SELECT probed_at::text FROM storage_probe")).toEqual([before!]);
  });

  test("a transaction that waits past acquireMs for the engine answers timeout and never runs its work", async () => {
    let ran = false;
    // Held far longer than acquireMs (200): answering well before the holder lets go shows the wait
    // was cut at acquireMs, with room for a loaded machine's late timers.
    const holding = db.transaction(async () => {
      await Bun.sleep(2_000);
    });
    const { error, ms } = await storageFailureOf(
      db.transaction(async () => {
        ran = true;
      }),
    );
    expect(error.reason).toBe("timeout");
    expect(ms).toBeLessThan(1_500);
    await holding;
    await Bun.sleep(50);
    expect(ran).toBe(false);
  });

  test("a transaction whose signal is aborted sends no more statements and rolls back", async () => {
    const stop = new AbortController();
    const failure = await failureOf(
      db.transaction(
        async (tx) => {
          await tx.query("UPDATE storage_probe SET probed_at = 'epoch'");
          stop.abort(new Error("deadline"));
          await tx.query("SELECT 1");
        },
        { signal: stop.signal },
      ),
    );
    expect((failure as Error).message).toBe("deadline");
    expect(await db.query("SELECT count(*)::int AS epoch FROM storage_probe WHERE probed_at = 'epoch'")).toEqual([{ epoch: 0 }]);
  });

  test("a closed database answers connection", async () => {
    const closed = await openPglite({});
    await closed.close();
    const { error } = await storageFailureOf(closed.query("SELECT 1"));
    expect(error.reason).toBe("connection");
  });
});
