import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addUserPlaybooks } from "../../../test/support/playbooks.ts";
import { startTestService, type TestService } from "../../../test/support/service.ts";

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
});
