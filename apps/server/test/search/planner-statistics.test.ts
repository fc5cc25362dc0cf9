import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { plannerStatistics, type Sql } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { until } from "@als/test-support/server-process.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// The planner needs statistics to tell a table's indexes apart: without them, the lookup of one
// evaluation session by its key went through the index by user and read every session of the
// project. PostgreSQL's autovacuum keeps them; in embedded mode (PGlite runs no autovacuum) the
// reconciler does, every few seconds.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const SESSIONS = 1_500;
/** The lookup of one session as noteSessionActivity makes it, and the index its plan reads. */
const sessionLookupIndex = async () => {
  const plan = await svc.db.query<{ "QUERY PLAN": string }>(
    "EXPLAIN SELECT status FROM evaluation_sessions WHERE org_id = $1 AND project_id = $2 AND session_id = $3 FOR UPDATE",
    ["local", "default", "s-77"],
  );
  return plan.map((row) => row["QUERY PLAN"]).join("\n");
};
const fillSessions = (first: number, sql: Sql = svc.db) =>
  sql.query(
    `INSERT INTO evaluation_sessions (org_id, project_id, session_id, user_id, source, agent_version, evaluation_only,
       success_sampled, learning_sampled, has_shadow, last_activity_at, due_at, created_at)
     SELECT 'local', 'default', 's-' || i, 'u-' || (i % 40), '', '', false, true, true, false, 1000, 1600, 1000
       FROM generate_series($1::int, $2::int) AS i`,
    [first, first + SESSIONS - 1],
  );

describe("planner statistics", () => {
  test("a table grown past its statistics is listed until it is analyzed; then one session is found by its key", async () => {
    await svc.db.exec("ANALYZE evaluation_sessions");
    expect(await plannerStatistics.tablesOutgrowingStatistics(svc.db)).not.toContain("evaluation_sessions");
    // In one transaction, so that the embedded reconciler's own ANALYZE (on its timer) cannot come between.
    const grown = await svc.db.transaction(async (tx) => {
      await fillSessions(1, tx);
      return plannerStatistics.tablesOutgrowingStatistics(tx);
    });
    expect(grown).toContain("evaluation_sessions");
    await plannerStatistics.analyzeTables(svc.db, grown);
    expect(await plannerStatistics.tablesOutgrowingStatistics(svc.db)).toEqual([]);
    expect(await sessionLookupIndex()).toContain("evaluation_sessions_pkey");
  });

  test.skipIf(testMode !== "embedded")("the embedded reconciler analyzes a table within seconds of its growing, each time it grows", async () => {
    // The service's own reconciler, on its timer: nothing pokes it here.
    const described = async () =>
      (await svc.db.query<{ rows: number }>("SELECT reltuples::int8 AS rows FROM pg_class WHERE relname = 'evaluation_sessions'"))[0]!.rows;
    for (const round of [1, 2]) {
      await fillSessions(round * SESSIONS + 1);
      const total = (round + 1) * SESSIONS;
      // Its statistics describe every row once an ANALYZE has read the grown table.
      await until(async () => (Number(await described()) === total ? true : undefined), 15_000);
      expect(await plannerStatistics.tablesOutgrowingStatistics(svc.db)).not.toContain("evaluation_sessions");
    }
    await svc.learningIdle();
  });
});
