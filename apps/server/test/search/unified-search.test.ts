import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Embedder } from "@als/ai";
import type { ClientInput } from "@als/client";
import { createProcessServices } from "@als/core";
import { freshDatabase, testMode } from "@als/test-support/database.ts";
import { sharedEmbedder } from "@als/test-support/embedder.ts";
import { addAgentPlaybooks, addUserPlaybooks, expectReformulationRefused, expectSearchRejections, INVALID_SEARCHES } from "@als/test-support/playbooks.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

let svc: TestService;
const up: Record<string, number> = {};
const ap: Record<string, number> = {};

beforeAll(async () => {
  svc = await startTestService();
  await svc.client.profiles.add({
    user_profiles: [
      { user_id: "ana", profile_id: "ana-hike", content: "Loves hiking in the mountains", source: "chat", tags: ["outdoor"] },
      { user_id: "ana", profile_id: "ana-nuts", content: "Is allergic to peanuts", source: "email", tags: ["health"] },
      { user_id: "ben", profile_id: "ben-hike", content: "Loves hiking in the hills" },
    ],
  });
  const named: [string, object][] = [
    ["refundChat", { user_id: "ana", content: "Offer a refund when the order arrived broken", source: "chat", tags: ["billing"] }],
    ["refundEmail", { user_id: "ana", content: "Offer a refund for late deliveries", source: "email" }],
    ["spanish", { user_id: "ana", content: "Reply in Spanish to Spanish speakers", source: "chat", tags: ["language"] }],
    ["benRefund", { user_id: "ben", content: "Offer a refund politely", source: "chat" }],
  ];
  for (const [name, playbook] of named) up[name] = (await addUserPlaybooks(svc, [playbook]))[0]!;
  const agents: [string, object][] = [
    [
      "refund",
      {
        trigger: "a customer wants their money back",
        content: "Offer a refund",
        playbook_status: "APPROVED",
        source_user_playbook_ids: [up.benRefund],
        tags: ["billing"],
      },
    ],
    [
      "shipping",
      { trigger: "a question about shipping", content: "Quote five business days", playbook_status: "PENDING", source_user_playbook_ids: [up.refundEmail] },
    ],
    ["rejected", { trigger: "a customer wants a discount", content: "Offer ten percent off", playbook_status: "REJECTED" }],
  ];
  for (const [name, playbook] of agents) ap[name] = (await addAgentPlaybooks(svc, [playbook]))[0]!;
});
afterAll(() => svc.close());

type SearchResult = Awaited<ReturnType<TestService["client"]["search"]["unified"]>>;
const search = (input: ClientInput<"search", "unified">) => svc.client.search.unified(input);
/** The raw request: for bodies the typed client would not compile and for checks of raw headers and bodies. */
const rawSearch = (body: object, headers: Record<string, string> = {}) => svc.call("POST", "/api/search", body, headers);
// Similarity floor 0: every seeded learning is at least slightly similar to any query.
const everything = { search_mode: "vector", threshold: 0 } as const;
const profileIds = (r: SearchResult) => r.profiles.map((p) => p.profile_id).sort();
const userIds = (r: SearchResult) => r.user_playbooks.map((p) => p.user_playbook_id).sort((a, b) => a - b);
const agentIds = (r: SearchResult) => r.agent_playbooks.map((p) => p.agent_playbook_id).sort((a, b) => a - b);
const sortedIds = (...ids: (number | undefined)[]) => (ids as number[]).toSorted((a, b) => a - b);

/** Runs `work` with the service's search settings (and embedder) replaced, restoring them after. */
async function withSearchDeps<T>(override: { search?: object; embedder?: Embedder }, work: () => Promise<T>): Promise<T> {
  const saved = { search: svc.deps.search, embedder: svc.deps.embedder };
  Object.assign(svc.deps, override);
  try {
    return await work();
  } finally {
    Object.assign(svc.deps, saved);
  }
}

/** The real embedder, slower by `delayMs` and counting its query embeddings. */
function slowCountingEmbedder(inner: Embedder, delayMs: number) {
  const counter = { queries: 0 };
  const embedder: Embedder = {
    modelId: inner.modelId,
    dimensions: inner.dimensions,
    defaultThreshold: inner.defaultThreshold,
    calibration: inner.calibration,
    embedDocuments: (texts) => inner.embedDocuments(texts),
    async embedQuery(text) {
      counter.queries++;
      await Bun.sleep(delayMs);
      return inner.embedQuery(text);
    },
    hasCachedQuery: (text) => inner.hasCachedQuery(text),
    close: async () => {},
  };
  return { embedder, counter };
}

describe("POST /api/search: request validation", () => {
  test("every bad field answers 422 naming it", async () => {
    await expectSearchRejections(rawSearch, [
      // The playbook searches' cases, but for status and time filters, which this search has not.
      ...INVALID_SEARCHES.filter(([, field]) => !field.startsWith("status_filter") && field !== "end_time"),
      [{}, "query"],
      [{ query: "x", session_id: "s".repeat(256) }, "session_id"],
      [{ query: "x", request_id: "r".repeat(256) }, "request_id"],
      [{ query: "x", interaction_id: 0 }, "interaction_id"],
      [{ query: "x", interaction_id: 1.5 }, "interaction_id"],
      [{ query: "x", entity_types: [] }, "entity_types"],
      [{ query: "x", entity_types: ["profiles", "facts"] }, "entity_types[1]"],
      [{ query: "x", agent_playbook_status_filter: ["maybe"] }, "agent_playbook_status_filter[0]"],
      [{ query: "x", enable_agent_answer: "yes" }, "enable_agent_answer"],
      [{ query: "x", conversation_history: [{ role: "user" }] }, "conversation_history[0].content"],
    ]);
  });

  test("reformulation needs an LLM this server does not have: 501", async () => {
    await expectReformulationRefused(rawSearch);
  });

  test("the optional fields of the contract are accepted", async () => {
    const response = await rawSearch({
      query: "refund",
      request_id: "req-1",
      enable_agent_answer: true,
      conversation_history: [{ role: "user", content: "my parcel came broken" }],
      source: null,
      tags: [],
      agent_playbook_status_filter: "approved",
    });
    expect(response.status).toBe(200);
  });
});

describe("POST /api/search: results", () => {
  test("the response carries every list and null reformulation, degradation and experiment", async () => {
    const result = await search({ query: "refund", user_id: "ana", ...everything });
    expect(Object.keys(result).sort()).toEqual(
      ["agent_playbooks", "degradation", "experiment", "profiles", "reformulated_query", "success", "user_playbooks"].sort(),
    );
    expect(result).toMatchObject({ success: true, reformulated_query: null, degradation: null, experiment: null });
    expect(result.profiles[0]).toMatchObject({ user_id: "ana", content: expect.any(String) });
    expect(result.agent_playbooks[0]).toMatchObject({ playbook_status: expect.any(String), source_user_playbook_ids: expect.any(Array) });
    expect((result.profiles[0] as Record<string, unknown>).embedding).toBeUndefined();
  });

  test("top_k is per entity type and defaults to 5", async () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ user_id: "cat", content: `Greet the user warmly, variant ${i}` }));
    await addUserPlaybooks(svc, many);
    const byDefault = await search({ query: "greeting", user_id: "cat", entity_types: ["user_playbooks"], ...everything });
    expect(byDefault.user_playbooks).toHaveLength(5);
    const two = await search({ query: "greeting", user_id: "cat", ...everything, top_k: 2 });
    expect(two.user_playbooks).toHaveLength(2);
    expect(two.agent_playbooks).toHaveLength(2);
  });

  test("profiles are searched only for a user_id, and user_id scopes profiles and user playbooks", async () => {
    // Without agent playbooks, which would stand in for the user playbooks they were made from.
    const anonymous = await search({ query: "hiking", ...everything, top_k: 100, entity_types: ["profiles", "user_playbooks"] });
    expect(anonymous.profiles).toEqual([]);
    expect(new Set(anonymous.user_playbooks.map((p) => p.user_id))).toContain("ben");
    const ana = await search({ query: "hiking", user_id: "ana", ...everything, top_k: 100, entity_types: ["profiles", "user_playbooks"] });
    expect(profileIds(ana)).toContain("ana-hike");
    expect(new Set(ana.profiles.map((p) => p.user_id))).toEqual(new Set(["ana"]));
    expect(new Set(ana.user_playbooks.map((p) => p.user_id))).toEqual(new Set(["ana"]));
    expect(ana.agent_playbooks).toEqual([]);
  });

  test("a semantic query finds learnings of every type without a shared word (hybrid by default)", async () => {
    const response = await search({ query: "trekking outdoors", user_id: "ana", top_k: 1 });
    expect(profileIds(response)).toEqual(["ana-hike"]);
  });

  test("entity_types selects what is searched", async () => {
    const result = await search({ query: "refund", user_id: "ana", ...everything, entity_types: ["agent_playbooks"] });
    expect(result.profiles).toEqual([]);
    expect(result.user_playbooks).toEqual([]);
    expect(result.agent_playbooks.length).toBeGreaterThan(0);
  });

  test("source filters every type; agent playbooks match through their linked user playbooks", async () => {
    const response = await search({
      query: "refund",
      user_id: "ana",
      source: "email",
      ...everything,
      top_k: 100,
      entity_types: ["profiles", "agent_playbooks"],
    });
    expect(profileIds(response)).toEqual(["ana-nuts"]);
    expect(agentIds(response)).toEqual([ap.shipping!]);
    const users = await search({ query: "refund", user_id: "ana", source: "chat", ...everything, top_k: 100, entity_types: ["user_playbooks"] });
    expect(userIds(users)).toEqual(sortedIds(up.refundChat, up.spanish));
    const empty = await search({ query: "refund", user_id: "ana", source: "", ...everything, top_k: 100, entity_types: ["profiles"] });
    expect(profileIds(empty)).toEqual(["ana-hike", "ana-nuts"]);
  });

  test("tags match any of the given tags", async () => {
    const response = await search({ query: "refund", user_id: "ana", tags: ["outdoor", "billing"], ...everything, top_k: 100 });
    expect(profileIds(response)).toEqual(["ana-hike"]);
    expect(userIds(response)).toEqual([up.refundChat!]);
    expect(agentIds(response)).toEqual([ap.refund!]);
  });

  test("agent_playbook_status_filter takes approval statuses in any case", async () => {
    const response = await search({
      query: "customer",
      agent_playbook_status_filter: ["rejected", "Pending"],
      ...everything,
      top_k: 100,
      entity_types: ["agent_playbooks"],
    });
    expect(agentIds(response)).toEqual(sortedIds(ap.shipping, ap.rejected));
  });

  test("the same operation is served over tRPC as search.unified", async () => {
    const response = await svc.app.handle(
      new Request("http://localhost/trpc/search.unified", {
        method: "POST",
        body: JSON.stringify({ query: "hiking", user_id: "ana", top_k: 1 }),
        headers: { "content-type": "application/json" },
      }),
    );
    const body = (await response.json()) as any;
    expect(body.result.data.profiles.map((p: any) => p.profile_id)).toEqual(["ana-hike"]);
  });

  test("the three searches share one query embedding", async () => {
    const { embedder, counter } = slowCountingEmbedder(await sharedEmbedder(), 0);
    await withSearchDeps({ embedder }, () => search({ query: "a fresh query about refunds", user_id: "ana" }));
    expect(counter.queries).toBe(1);
  });
});

describe("POST /api/search: omission rule", () => {
  test("user playbooks represented by a returned agent playbook are left out and not refilled", async () => {
    const [linked, second, third, fourth] = await addUserPlaybooks(svc, [
      { user_id: "dan", content: "Escalate billing disputes to a supervisor" },
      { user_id: "dan", content: "Escalate billing disputes by email" },
      { user_id: "dan", content: "Escalate angry customers to a supervisor" },
      { user_id: "dan", content: "Water the office plants on Fridays" },
    ]);
    const [agent] = await addAgentPlaybooks(svc, [
      { trigger: "a billing dispute", content: "Escalate billing disputes to a supervisor", playbook_status: "APPROVED", source_user_playbook_ids: [linked] },
    ]);
    const query = { query: "Escalate billing disputes to a supervisor", user_id: "dan", ...everything, top_k: 3 };
    const alone = await search({ ...query, entity_types: ["user_playbooks"] });
    expect(userIds(alone)).toEqual(sortedIds(linked, second, third));

    const together = await search(query);
    expect(agentIds(together)).toContain(agent!);
    expect(userIds(together)).toEqual(sortedIds(second, third));
    expect(userIds(together)).not.toContain(fourth);
  });
});

describe("POST /api/search: sessions", () => {
  const sessionQuery = { query: "refund", user_id: "ana", ...everything, top_k: 1 };

  test("a learning served to a session is not served again in that session", async () => {
    const first = await search({ ...sessionQuery, session_id: "sess-a", interaction_id: 7 });
    const second = await search({ ...sessionQuery, session_id: "sess-a" });
    for (const list of ["profiles", "user_playbooks", "agent_playbooks"] as const) {
      expect(first[list]).toHaveLength(1);
      expect(second[list]).toHaveLength(1);
      expect(second[list][0]).not.toEqual(first[list][0]);
    }
    const otherSession = await search({ ...sessionQuery, session_id: "sess-b" });
    expect(profileIds(otherSession)).toEqual(profileIds(first));
    const noSession = await search(sessionQuery);
    expect(profileIds(noSession)).toEqual(profileIds(first));

    const rows = await svc.db.query<{ kind: string; interaction_id: string | number | null }>(
      "SELECT kind, interaction_id FROM search_session_served WHERE session_id = 'sess-a' ORDER BY served_at, kind",
    );
    expect(rows).toHaveLength(6);
    expect(rows.filter((row) => row.interaction_id !== null).map((row) => Number(row.interaction_id))).toEqual([7, 7, 7]);
  });

  test("without session_id nothing is recorded; request_id is correlation only", async () => {
    const before = await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM search_session_served");
    await search({ ...sessionQuery, request_id: "req-only" });
    const after = await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM search_session_served");
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test("concurrent searches of one session never serve the same learning twice", async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => search({ ...sessionQuery, session_id: "sess-race", top_k: 3 })));
    for (const list of ["profiles", "user_playbooks", "agent_playbooks"] as const) {
      const served = responses.flatMap((r) => r[list].map((item: any) => JSON.stringify(item.profile_id ?? item.user_playbook_id ?? item.agent_playbook_id)));
      expect(served.length).toBeGreaterThan(0);
      expect(new Set(served).size).toBe(served.length);
    }
  });
});

describe("POST /api/search: deadline and storage", () => {
  test("past the deadline: 504 with detail, reason and correlation_id, and no served state", async () => {
    const response = await withSearchDeps({ search: { deadlineMs: 0 } }, () =>
      rawSearch({ ...everything, query: "refund", user_id: "ana", session_id: "sess-late" }, { "x-correlation-id": "corr-504" }),
    );
    expect(response.status).toBe(504);
    expect(response.body).toEqual({ error: "search_deadline", detail: "Request timeout", reason: "search_deadline", correlation_id: "corr-504" });
    const rows = await svc.db.query("SELECT 1 FROM search_session_served WHERE session_id = 'sess-late'");
    expect(rows).toEqual([]);
  });

  test("a search that outlasts the deadline is cut off at it", async () => {
    const { embedder } = slowCountingEmbedder(await sharedEmbedder(), 2000);
    const started = performance.now();
    await expect(withSearchDeps({ embedder, search: { deadlineMs: 100 } }, () => search({ query: "slow refund", user_id: "ana" }))).rejects.toMatchObject({
      status: 504,
      details: { reason: "search_deadline" },
    });
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test("with the deadline switched off a slow search completes", async () => {
    const { embedder } = slowCountingEmbedder(await sharedEmbedder(), 200);
    const result = await withSearchDeps({ embedder, search: { deadlineMs: null } }, () => search({ query: "slow refund again", user_id: "ana" }));
    expect(result.success).toBe(true);
  });

  test("unavailable storage answers 503, never an empty success", async () => {
    const { db, drop } = await freshDatabase();
    const app = buildApp({
      deps: { db, services: createProcessServices(db, sharedProcessActivity()), embedder: await sharedEmbedder(), now: () => 0 },
      log: createLogger("error"),
      mode: testMode,
    });
    await drop();
    const response = await app.handle(
      new Request("http://localhost/api/search", {
        method: "POST",
        headers: { "content-type": "application/json", "x-correlation-id": "corr-503" },
        body: JSON.stringify({ query: "anything", user_id: "u" }),
      }),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: "storage_unavailable", correlation_id: "corr-503" });
  });
});
