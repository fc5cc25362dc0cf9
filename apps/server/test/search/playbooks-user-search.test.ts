import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { addUserPlaybooks, expectReformulationRefused, expectSearchRejections, INVALID_SEARCHES } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let t0: number;
const id: Record<string, number> = {};

beforeAll(async () => {
  svc = await startTestService();
  t0 = svc.clock.now;
  const playbooks: [string, object][] = [
    [
      "refund",
      {
        trigger: "the customer asks to get their money back",
        content: "Check the purchase date and issue a refund within 30 days",
        source: "chat",
        tags: ["billing"],
      },
    ],
    ["french", { trigger: "the user writes in French", content: "Reply in French", source: "email", tags: ["language"], agent_version: "v2" }],
    [
      "apology",
      { trigger: "the user is angry", content: "Apologise once, then fix the problem", rationale: "Grovelling wastes their patience", playbook_name: "tone" },
    ],
    ["code", { trigger: "a programming question", content: "Give a runnable code example", tags: ["dev", "format"], status: "PENDING" }],
    ["old", { trigger: "the user asks about shipping", content: "Quote five business days", status: "ARCHIVED", source: "chat" }],
  ];
  for (const [name, playbook] of playbooks) {
    id[name] = (await addUserPlaybooks(svc, [{ user_id: "una", ...playbook }]))[0]!;
    svc.clock.now += 60;
  }
  id.other = (await addUserPlaybooks(svc, [{ user_id: "vic", trigger: "a refund request", content: "Escalate every refund to a human" }]))[0]!;
});
afterAll(() => svc.close());

const search = (input: ClientInput<"userPlaybooks", "search">) => svc.client.userPlaybooks.search(input);
/** The raw request, for the shared checks of refusals (bodies the typed client would not compile). */
const rawSearch = (body: object) => svc.call("POST", "/api/search_user_playbooks", body);
const ids = (result: { user_playbooks: { user_playbook_id: number }[] }) => result.user_playbooks.map((p) => p.user_playbook_id);
// Similarity floor 0: every seeded playbook is at least slightly similar to the queries used with it.
const anyMatch = { search_mode: "vector", threshold: 0 } as const;

describe("search_user_playbooks", () => {
  test("a semantic query finds a playbook that shares no word with it", async () => {
    for (const search_mode of ["vector", "hybrid"] as const) {
      const result = await search({ user_id: "una", query: "client wants reimbursement", search_mode, top_k: 1 });
      expect(result.success).toBe(true);
      expect(ids(result)).toEqual([id.refund!]);
    }
  });
  test("fts matches stemmed words of trigger, content and rationale, and nothing without a shared word", async () => {
    expect(ids(await search({ query: "refunds", search_mode: "fts", user_id: "una" }))).toEqual([id.refund!]);
    expect(ids(await search({ query: "patience", search_mode: "fts" }))).toEqual([id.apology!]);
    expect(ids(await search({ query: "reimbursement", search_mode: "fts" }))).toEqual([]);
  });
  test("hybrid is the default", async () => {
    expect(ids(await search({ user_id: "una", query: "respond in french language" }))[0]).toBe(id.french!);
  });
  test("without user_id the whole project is searched; user_id filters", async () => {
    expect(ids(await search({ query: "refund", search_mode: "fts" })).sort()).toEqual([id.refund!, id.other!].sort());
    expect(ids(await search({ query: "refund", search_mode: "fts", user_id: "una" }))).toEqual([id.refund!]);
    expect(ids(await search({ query: "refund", ...anyMatch, user_id: "vic" }))).toEqual([id.other!]);
  });
  test("status_filter defaults to CURRENT and PENDING; ARCHIVED only on request, in any letter case", async () => {
    const unfiltered = ids(await search({ user_id: "una", query: "shipping time", ...anyMatch }));
    expect(unfiltered).toContain(id.code!);
    expect(unfiltered).not.toContain(id.old!);
    expect(ids(await search({ user_id: "una", query: "shipping time", status_filter: ["archived"] }))).toEqual([id.old!]);
    expect(ids(await search({ user_id: "una", query: "anything", ...anyMatch, status_filter: ["Pending"] }))).toEqual([id.code!]);
  });
  test("filters: source exact match (empty disables), agent_version, playbook_name, tags any-match, created-at range", async () => {
    expect(ids(await search({ query: "customer", ...anyMatch, source: "chat" }))).toEqual([id.refund!]);
    expect(ids(await search({ query: "customer", ...anyMatch, source: "cha" }))).toEqual([]);
    expect(ids(await search({ query: "customer", ...anyMatch, source: "" })).length).toBe(5);
    expect(ids(await search({ query: "customer", ...anyMatch, agent_version: "v2" }))).toEqual([id.french!]);
    expect(ids(await search({ query: "customer", ...anyMatch, playbook_name: "tone" }))).toEqual([id.apology!]);
    expect(ids(await search({ query: "customer", ...anyMatch, tags: ["language", "dev", "missing"] })).sort()).toEqual([id.french!, id.code!].sort());
    expect(ids(await search({ query: "customer", ...anyMatch, start_time: t0 + 60, end_time: t0 + 120 })).sort()).toEqual([id.french!, id.apology!].sort());
  });
  test("threshold bounds the vector arm", async () => {
    expect(ids(await search({ query: "refund", search_mode: "vector", threshold: 0.99 }))).toEqual([]);
    expect(ids(await search({ query: "refund", search_mode: "vector", threshold: 0 })).length).toBe(5);
  });
  test("top_k caps results at 10 by default; without a query the newest come back", async () => {
    await addUserPlaybooks(
      svc,
      Array.from({ length: 12 }, (_, i) => ({ user_id: "wes", content: `tip number ${i}` })),
    );
    expect(ids(await search({ user_id: "wes", query: "tip", ...anyMatch })).length).toBe(10);
    expect(ids(await search({ user_id: "wes", query: "tip", ...anyMatch, top_k: 3 })).length).toBe(3);
    expect(ids(await search({ user_id: "una", top_k: 2 }))).toEqual([id.code!, id.apology!]);
  });
  test("request_id and session_id are correlation only, never filters", async () => {
    expect(ids(await search({ user_id: "una", query: "refund", request_id: "req-1", session_id: "sess-1", top_k: 1 }))).toEqual([id.refund!]);
  });
  test("enable_reformulation is refused clearly while no LLM is available", () => expectReformulationRefused(rawSearch));
  test("422 for every invalid option, naming the field", () =>
    expectSearchRejections(rawSearch, [
      ...INVALID_SEARCHES,
      [{ query: "x", request_id: "r".repeat(256) }, "request_id"],
      [{ query: "x", session_id: "s".repeat(256) }, "session_id"],
    ]));
  test("top_k 100 is the upper bound that is accepted", async () => {
    expect((await search({ query: "x", top_k: 100 })).success).toBe(true);
  });
});
