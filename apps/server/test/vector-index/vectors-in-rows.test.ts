import { afterAll, beforeAll, expect, test } from "bun:test";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// Migration 0037: a learning's vector stays in its row, where a search computes distances from it,
// instead of in the TOAST table, from which each distance had to fetch it first.

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/** Bytes of each table's TOAST relation: 0 while nothing of the table was moved out of its rows. */
const toastBytes = async () =>
  Object.fromEntries(
    (
      await svc.db.query<{ table: string; bytes: number }>(
        `SELECT relname AS table, pg_relation_size(reltoastrelid)::int8 AS bytes FROM pg_class
          WHERE relname IN ('user_playbooks', 'agent_playbooks') ORDER BY relname`,
      )
    ).map((row) => [row.table, row.bytes]),
  );

test("a playbook of a few hundred words' worth of text keeps its vector in its row", async () => {
  expect(await toastBytes()).toEqual({ agent_playbooks: 0, user_playbooks: 0 });
  // With its 1,540-byte vector the row passes the 2 kB at which PostgreSQL moves values out by default.
  const content = "Check the order's purchase date and the refund policy of its region before offering a refund. ".repeat(7);
  const [userPlaybook] = await addUserPlaybooks(svc, [{ user_id: "ada", content, trigger: "the customer asks for their money back" }]);
  await addAgentPlaybooks(svc, [{ content, trigger: "the customer asks for their money back", playbook_status: "APPROVED" }]);
  const [row] = await svc.db.query<{ bytes: number }>("SELECT pg_column_size(t.*)::int8 AS bytes FROM user_playbooks t WHERE user_playbook_id = $1", [
    userPlaybook,
  ]);
  expect(row!.bytes).toBeGreaterThan(2100);
  expect(await toastBytes()).toEqual({ agent_playbooks: 0, user_playbooks: 0 });
  const found = await svc.call("POST", "/api/search_user_playbooks", { user_id: "ada", query: "a customer wants a refund", search_mode: "vector", top_k: 1 });
  expect(found.body.user_playbooks.map((p: { user_playbook_id: number }) => p.user_playbook_id)).toEqual([userPlaybook]);
});
