import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
  const playbooks = Array.from({ length: 40 }, (_, i) => ({ user_id: "u", trigger: `Order question ${i}`, content: `Look up the order number ${i}` }));
  playbooks.push({ user_id: "u", trigger: "A refund is asked for", content: "Check the order date against the refund window" });
  await addUserPlaybooks(svc, playbooks);
  // The planner's statistics are what tell a common word from a distinctive one.
  await svc.db.exec("ANALYZE user_playbooks");
});
afterAll(() => svc.close());

const fts = async (query: string) =>
  (await svc.call("POST", "/api/search_user_playbooks", { query, search_mode: "fts", top_k: 100 })).body.user_playbooks.map((p: any) => p.trigger);

describe("the full-text arm and common words", () => {
  test("a word most rows contain is left out when the query has a distinctive one", async () => {
    expect(await fts("order refund")).toEqual(["A refund is asked for"]);
  });

  test("a query of only common words keeps them", async () => {
    expect((await fts("order")).length).toBe(41);
  });

  test("quotes and backslashes in the query are taken literally", async () => {
    expect(await fts("it's a refund\\ with 'quotes' & | ! (symbols)")).toEqual(["A refund is asked for"]);
  });

  // Last: it makes "refund" common. The process keeps a table's common words for a minute.
  test("new statistics change which words are common within a minute", async () => {
    const refunds = Array.from({ length: 60 }, (_, i) => ({ user_id: "u", trigger: `Refund case ${i}`, content: `Refund issued for case ${i}` }));
    await addUserPlaybooks(svc, refunds);
    await svc.db.exec("ANALYZE user_playbooks");
    // Still the words common before: "refund" is distinctive, "order" is left out.
    expect((await fts("order refund")).length).toBe(61);
    svc.clock.now += 61;
    // Now both are common, so the query keeps both: the row holding both first, then rows holding
    // either (all 101 match; top_k is 100).
    const found = await fts("order refund");
    expect(found[0]).toBe("A refund is asked for");
    expect(found.length).toBe(100);
  });
});
