import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import { openPostgres } from "../src/drivers/postgres.ts";

const serverUrl = process.env.TEST_DATABASE_URL;
const STATEMENT_MS = 1_000;

// Statements of a transaction sent together wait in postgres.js's queue while the first new one is
// described; when the connection closes, postgres.js fails the transaction but leaves the queued
// ones unsettled. Their answer timers (statement bound plus 2 s) would then retire the whole pool,
// closing its healthy connections under other requests (seen in the chaos suite).
describe.skipIf(!serverUrl)("statements pipelined in a transaction whose connection closes", () => {
  test("fail with the transaction at once, and the pool keeps its other connections", async () => {
    const db = openPostgres({ url: serverUrl!, maxConnections: 2, timeouts: { connectMs: 5_000, acquireMs: 5_000, statementMs: STATEMENT_MS } });
    const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    const pidsOfPool = async () => {
      const [a, b] = await Promise.all([
        db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid, pg_sleep(0.2)"),
        db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid, pg_sleep(0.2)"),
      ]);
      return new Set([a![0]!.pid, b![0]!.pid]);
    };
    try {
      const before = await pidsOfPool();
      expect(before.size).toBe(2);
      const settled: string[] = [];
      let terminatedAt = 0;
      const failed = db
        .transaction(async (tx) => {
          const [{ pid }] = (await tx.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")) as [{ pid: number }];
          const statements = [
            tx.query("SELECT pg_sleep(0.5), $1::int AS n", [1]),
            tx.query("SELECT $1::int + 1 AS n", [2]),
            tx.query("SELECT $1::text AS t", ["three"]),
          ].map((statement) =>
            statement.then(
              () => "answered",
              () => settled.push(`failed after ${Math.round(performance.now() - terminatedAt)} ms`),
            ),
          );
          await Bun.sleep(100);
          terminatedAt = performance.now();
          await admin`SELECT pg_terminate_backend(${pid})`;
          await Promise.all(statements);
        })
        .then(
          () => "committed",
          (error: Error) => error.message,
        );
      expect(await failed).toContain("storage is unavailable");
      await Bun.sleep(50);
      expect(settled).toHaveLength(3);
      for (const when of settled) expect(Number(when.match(/\d+/)![0])).toBeLessThan(STATEMENT_MS);
      // Past the bound at which an unsettled statement would have retired the pool.
      await Bun.sleep(STATEMENT_MS + 2_500);
      // The connection the transaction did not use is still the pool's: the pool was not retired.
      const after = await pidsOfPool();
      expect([...after].filter((pid) => before.has(pid))).toHaveLength(1);
    } finally {
      await db.close();
      await admin.end();
    }
  }, 20_000);
});
