import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { addAgentPlaybooks, addUserPlaybooks, expectReformulationRefused, expectSearchRejections, INVALID_SEARCHES } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let t0: number;
const id: Record<string, number> = {};

beforeAll(async () => {
  svc = await startTestService();
  const [fromChat, fromEmail, alsoEmail] = await addUserPlaybooks(svc, [
    { user_id: "ivy", content: "Offer a refund", source: "chat" },
    { user_id: "jon", content: "Offer a refund", source: "email" },
    { user_id: "kim", content: "Reply in Spanish", source: "email" },
  ]);
  t0 = svc.clock.now;
  const playbooks: [string, object][] = [
    [
      "refund",
      {
        trigger: "a customer asks to get their money back",
        content: "Check the purchase date, then issue a refund",
        source_user_playbook_ids: [fromChat, fromEmail],
        playbook_status: "APPROVED",
        tags: ["billing"],
      },
    ],
    [
      "spanish",
      {
        trigger: "the user writes in Spanish",
        content: "Reply in Spanish",
        source_user_playbook_ids: [alsoEmail],
        playbook_status: "APPROVED",
        agent_version: "v2",
        tags: ["language"],
      },
    ],
    ["outage", { trigger: "the service is down", content: "Share the status page link", playbook_name: "incidents", playbook_status: "PENDING" }],
    ["draft", { trigger: "the user wants a discount", content: "Offer ten percent off", status: "PENDING", playbook_status: "REJECTED", tags: ["billing"] }],
    ["old", { trigger: "a question about shipping", content: "Quote five business days", status: "ARCHIVED", playbook_status: "APPROVED" }],
  ];
  for (const [name, playbook] of playbooks) {
    id[name] = (await addAgentPlaybooks(svc, [playbook]))[0]!;
    svc.clock.now += 60;
  }
});
afterAll(() => svc.close());

const search = (input: ClientInput<"agentPlaybooks", "search">) => svc.client.agentPlaybooks.search(input);
/** The raw request, for the shared checks of refusals (bodies the typed client would not compile). */
const rawSearch = (body: object) => svc.call("POST", "/api/search_agent_playbooks", body);
const ids = (result: { agent_playbooks: { agent_playbook_id: number }[] }) => result.agent_playbooks.map((p) => p.agent_playbook_id);
const sorted = (values: (number | undefined)[]) => [...values].sort((a, b) => a! - b!);
// Similarity floor 0: every seeded playbook is at least slightly similar to the queries used with it.
const anyMatch = { search_mode: "vector", threshold: 0 } as const;

describe("search_agent_playbooks", () => {
  test("a semantic query finds a playbook that shares no word with it", async () => {
    for (const search_mode of ["vector", "hybrid"] as const) {
      const result = await search({ query: "client demands reimbursement", search_mode, top_k: 1 });
      expect(result.success).toBe(true);
      expect(ids(result)).toEqual([id.refund!]);
      expect(result.agent_playbooks[0]!.source_user_playbook_ids).toHaveLength(2);
    }
  });
  test("fts matches words; hybrid is the default", async () => {
    expect(ids(await search({ query: "status page", search_mode: "fts" }))).toEqual([id.outage!]);
    expect(ids(await search({ query: "reimbursement", search_mode: "fts" }))).toEqual([]);
    expect(ids(await search({ query: "website unavailable outage" }))[0]).toBe(id.outage!);
  });
  test("status_filter defaults to CURRENT and PENDING; ARCHIVED only on request", async () => {
    expect(sorted(ids(await search({ query: "customer", ...anyMatch })))).toEqual(sorted([id.refund, id.spanish, id.outage, id.draft]));
    expect(ids(await search({ query: "shipping", status_filter: ["archived"] }))).toEqual([id.old!]);
    expect(ids(await search({ query: "customer", ...anyMatch, status_filter: ["pending"] }))).toEqual([id.draft!]);
  });
  test("playbook_status_filter is off unless given; it takes one status or a list, in any letter case", async () => {
    expect(ids(await search({ query: "customer", ...anyMatch, playbook_status_filter: "rejected" }))).toEqual([id.draft!]);
    expect(sorted(ids(await search({ query: "customer", ...anyMatch, playbook_status_filter: ["Pending", "REJECTED"] })))).toEqual(
      sorted([id.outage, id.draft]),
    );
  });
  test("source matches when at least one linked source user playbook has it; empty disables", async () => {
    expect(ids(await search({ query: "customer", ...anyMatch, source: "chat" }))).toEqual([id.refund!]);
    expect(sorted(ids(await search({ query: "customer", ...anyMatch, source: "email" })))).toEqual(sorted([id.refund, id.spanish]));
    expect(ids(await search({ query: "customer", ...anyMatch, source: "crm" }))).toEqual([]);
    expect(ids(await search({ query: "customer", ...anyMatch, source: "" })).length).toBe(4);
    expect(ids(await search({ query: "refund", search_mode: "fts", source: "chat" }))).toEqual([id.refund!]);
  });
  test("user_id only identifies the caller: it never filters", async () => {
    const without = ids(await search({ query: "refund", ...anyMatch }));
    expect(ids(await search({ query: "refund", ...anyMatch, user_id: "someone-else" }))).toEqual(without);
    expect(without.length).toBe(4);
  });
  test("filters: agent_version, playbook_name, tags any-match, created-at range", async () => {
    expect(ids(await search({ query: "customer", ...anyMatch, agent_version: "v2" }))).toEqual([id.spanish!]);
    expect(ids(await search({ query: "customer", ...anyMatch, playbook_name: "incidents" }))).toEqual([id.outage!]);
    expect(sorted(ids(await search({ query: "customer", ...anyMatch, tags: ["billing", "none"] })))).toEqual(sorted([id.refund, id.draft]));
    expect(sorted(ids(await search({ query: "customer", ...anyMatch, start_time: t0 + 60, end_time: t0 + 120 })))).toEqual(sorted([id.spanish, id.outage]));
  });
  test("top_k caps results at 10 by default; without a query the newest come back", async () => {
    await addAgentPlaybooks(
      svc,
      Array.from({ length: 12 }, (_, i) => ({ content: `house rule ${i}`, playbook_name: "rules" })),
    );
    expect(ids(await search({ query: "rule", ...anyMatch, playbook_name: "rules" })).length).toBe(10);
    expect(ids(await search({ query: "rule", ...anyMatch, playbook_name: "rules", top_k: 4 })).length).toBe(4);
    expect(ids(await search({ top_k: 2, tags: ["billing", "language"] }))).toEqual([id.draft!, id.spanish!]);
  });
  test("threshold bounds the vector arm", async () => {
    expect(ids(await search({ query: "refund", search_mode: "vector", threshold: 0.99 }))).toEqual([]);
  });
  test("enable_reformulation is refused clearly while no LLM is available", () => expectReformulationRefused(rawSearch));
  test("422 for every invalid option, naming the field", () =>
    expectSearchRejections(rawSearch, [
      ...INVALID_SEARCHES,
      [{ query: "x", user_id: "" }, "user_id"],
      [{ query: "x", playbook_status_filter: ["current"] }, "playbook_status_filter[0]"],
      [{ query: "x", playbook_status_filter: [] }, "playbook_status_filter"],
    ]));
});
