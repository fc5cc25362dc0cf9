import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import type { Database } from "../src/driver.ts";
import { openPostgres } from "../src/drivers/postgres.ts";

const serverUrl = process.env.TEST_DATABASE_URL;

// The pool figures /metrics reads when scraped: calls holding a connection, calls waiting for one,
// and the storage failures by reason. PGlite has no pool: it reports none.
describe.skipIf(!serverUrl)("a PostgreSQL pool's stats", () => {
  let fresh: Awaited<ReturnType<typeof createFreshDatabase>>;
  let db: Database;

  beforeAll(async () => {
    fresh = await createFreshDatabase(serverUrl!);
    db = openPostgres({ url: fresh.url, maxConnections: 1, timeouts: { connectMs: 5_000, acquireMs: 5_000, statementMs: 300 } });
  });
  afterAll(async () => {
    await db.close();
    await fresh.drop();
  });

  test("a transaction holding the one connection is in use; a statement behind it waits; both end at zero", async () => {
    const stats = db.pool!;
    expect(stats.max).toBe(1);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let began!: () => void;
    const begun = new Promise<void>((resolve) => {
      began = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("SELECT 1");
      began();
      await held;
    });
    await begun;
    const behind = db.query("SELECT 2 AS two");
    expect([stats.inUse(), stats.waiting()]).toEqual([1, 1]);
    release();
    await transaction;
    expect(await behind).toEqual([{ two: 2 }]);
    expect([stats.inUse(), stats.waiting()]).toEqual([0, 0]);
  });

  test("a statement cancelled by statement_timeout counts as a failure of reason timeout", async () => {
    const stats = db.pool!;
    const before = stats.failures.timeout ?? 0;
    await expect(db.query("SELECT pg_sleep(2)")).rejects.toThrow("storage is unavailable (timeout)");
    expect(stats.failures.timeout).toBe(before + 1);
    expect([stats.inUse(), stats.waiting()]).toEqual([0, 0]);
  });
});
