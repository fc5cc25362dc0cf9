import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// The filters of get_interactions, search_interactions and get_requests: each narrows what comes
// back, a bad value is a 422 naming the field, and a filter an endpoint does not have is a 422 too
// (never dropped: a caller must not get more than it asked for).

let svc: TestService;
const requestIds = { old: "", recent: "", later: "", other: "" };
/** When each request was published (server time), and the created_at of its interactions. */
let t0: number;

beforeAll(async () => {
  svc = await startTestService();
  t0 = svc.clock.now;
  const publish = async (name: keyof typeof requestIds, body: object) => {
    const response = await svc.call("POST", "/api/publish_interaction", body);
    expect(response.status).toBe(200);
    requestIds[name] = response.body.request_id;
    svc.clock.now += 100;
  };
  // Interactions carry the caller's created_at: hours apart, whatever the order of publishing.
  await publish("old", {
    user_id: "ana",
    session_id: "s-old",
    source: "chat",
    interaction_data_list: [{ content: "An old question about the Tokyo flight", created_at: t0 - 7200 }],
  });
  await publish("recent", {
    user_id: "ana",
    session_id: "s-new",
    source: "email",
    interaction_data_list: [
      { content: "A recent question about the Tokyo flight", created_at: t0 - 60 },
      { role: "Agent", content: "The Tokyo flight leaves at nine", created_at: t0 - 50 },
    ],
  });
  await publish("later", {
    user_id: "ana",
    session_id: "s-new",
    source: "chat",
    interaction_data_list: [{ content: "One more thing about the Tokyo flight", created_at: t0 - 40 }],
  });
  await publish("other", { user_id: "ben", session_id: "s-new", source: "chat", interaction_data_list: [{ content: "Ben asks about the Tokyo flight" }] });
  await svc.learningIdle();
});
afterAll(() => svc.close());

const contents = (body: { interactions: { content: string }[] }) => body.interactions.map((i) => i.content).sort();

async function expect422(path: string, body: object, field: string) {
  const response = await svc.call("POST", path, body);
  expect({ field, status: response.status }).toEqual({ field, status: 422 });
  expect(response.body.message).toContain(field);
}

describe("get_interactions filters", () => {
  const get = async (filters: object) => (await svc.client.interactions.get({ user_id: "ana", ...filters })) as { interactions: { content: string }[] };

  test("start_time and end_time bound created_at, inclusively, in Unix seconds or ISO 8601", async () => {
    expect(contents(await get({ start_time: t0 - 600, end_time: t0 - 50 }))).toEqual([
      "A recent question about the Tokyo flight",
      "The Tokyo flight leaves at nine",
    ]);
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
    expect(contents(await get({ start_time: iso(t0 - 8000), end_time: iso(t0 - 7000) }))).toEqual(["An old question about the Tokyo flight"]);
    expect(contents(await get({ end_time: t0 - 3600 }))).toEqual(["An old question about the Tokyo flight"]);
  });

  test("session_id, request_id and source select the interactions of those requests", async () => {
    expect(contents(await get({ session_id: "s-old" }))).toEqual(["An old question about the Tokyo flight"]);
    expect(contents(await get({ request_id: requestIds.later }))).toEqual(["One more thing about the Tokyo flight"]);
    expect(contents(await get({ source: "email" }))).toEqual(["A recent question about the Tokyo flight", "The Tokyo flight leaves at nine"]);
    expect(contents(await get({ session_id: "s-new", source: "chat" }))).toEqual(["One more thing about the Tokyo flight"]);
  });

  test("a filter never reaches another user's interactions", async () => {
    expect(contents(await get({ request_id: requestIds.other }))).toEqual([]);
  });

  test("bad values are 422s naming the field; so are filters it does not have", async () => {
    for (const [body, field] of [
      [{ start_time: "yesterday" }, "start_time"],
      [{ start_time: -1 }, "start_time"],
      [{ start_time: t0, end_time: t0 - 10 }, "end_time"],
      [{ session_id: "" }, "session_id"],
      [{ request_id: 5 }, "request_id"],
      [{ source: "Not A Source" }, "source"],
      [{ offset: 2 }, "offset"],
      [{ query: "Tokyo" }, "query"],
    ] as const) {
      await expect422("/api/get_interactions", { user_id: "ana", ...body }, field);
    }
  });

  test("null for a filter means omitted", async () => {
    const all = await get({});
    expect(contents(await get({ start_time: null, end_time: null, session_id: null, request_id: null, source: null }))).toEqual(contents(all));
  });
});

describe("search_interactions filters", () => {
  const search = async (filters: object) =>
    (await svc.client.interactions.search({ user_id: "ana", query: "Tokyo flight", search_mode: "fts", top_k: 10, ...filters })) as {
      interactions: { content: string }[];
    };

  test("start_time and end_time bound created_at", async () => {
    expect(contents(await search({ start_time: t0 - 600 }))).toEqual([
      "A recent question about the Tokyo flight",
      "One more thing about the Tokyo flight",
      "The Tokyo flight leaves at nine",
    ]);
    expect(contents(await search({ end_time: t0 - 3600 }))).toEqual(["An old question about the Tokyo flight"]);
  });

  test("request_id, session_id and source narrow the search, in every search mode", async () => {
    for (const search_mode of ["fts", "vector", "hybrid"] as const) {
      expect(contents(await search({ search_mode, threshold: 0, request_id: requestIds.old }))).toEqual(["An old question about the Tokyo flight"]);
      expect(contents(await search({ search_mode, threshold: 0, session_id: "s-old" }))).toEqual(["An old question about the Tokyo flight"]);
      expect(contents(await search({ search_mode, threshold: 0, source: "email" }))).toEqual([
        "A recent question about the Tokyo flight",
        "The Tokyo flight leaves at nine",
      ]);
    }
  });

  test("threshold is the vector arm's similarity floor", async () => {
    expect((await search({ search_mode: "vector", threshold: 0 })).interactions).toHaveLength(4);
    expect((await search({ search_mode: "vector", threshold: 0.99 })).interactions).toEqual([]);
  });

  test("bad values are 422s naming the field; so are filters it does not have", async () => {
    for (const [body, field] of [
      [{ start_time: "soon" }, "start_time"],
      [{ start_time: t0, end_time: t0 }, "end_time"],
      [{ request_id: "" }, "request_id"],
      [{ session_id: "x".repeat(256) }, "session_id"],
      [{ source: "UPPER" }, "source"],
      [{ threshold: 1.5 }, "threshold"],
      [{ tags: ["a"] }, "tags"],
    ] as const) {
      await expect422("/api/search_interactions", { user_id: "ana", query: "Tokyo", ...body }, field);
    }
  });
});

describe("get_requests filters and pages", () => {
  type Page = { sessions: { session_id: string; requests: { request: { request_id: string } }[] }[]; has_more: boolean };
  const get = async (filters: object) => (await svc.client.requests.get({ user_id: "ana", ...filters })) as Page;
  const requestsOf = (page: Page) => page.sessions.flatMap((s) => s.requests.map((r) => r.request.request_id));

  test("session_id keeps one session", async () => {
    const page = await get({ session_id: "s-new" });
    expect(page.sessions.map((s) => s.session_id)).toEqual(["s-new"]);
    expect(requestsOf(page)).toEqual([requestIds.later, requestIds.recent]);
  });

  test("request_id and source select requests", async () => {
    expect(requestsOf(await get({ request_id: requestIds.recent }))).toEqual([requestIds.recent]);
    expect(requestsOf(await get({ source: "chat" }))).toEqual([requestIds.later, requestIds.old]);
    expect(requestsOf(await get({ request_id: requestIds.other }))).toEqual([]);
  });

  test("start_time and end_time bound when a request was published, inclusively", async () => {
    expect(requestsOf(await get({ start_time: t0 + 100, end_time: t0 + 200 }))).toEqual([requestIds.later, requestIds.recent]);
    expect(requestsOf(await get({ end_time: t0 }))).toEqual([requestIds.old]);
    expect(requestsOf(await get({ start_time: new Date((t0 + 150) * 1000).toISOString() }))).toEqual([requestIds.later]);
  });

  test("top_k and offset page through the newest first; has_more says whether another page follows", async () => {
    const first = await get({ top_k: 2 });
    expect([requestsOf(first), first.has_more]).toEqual([[requestIds.later, requestIds.recent], true]);
    const second = await get({ top_k: 2, offset: 2 });
    expect([requestsOf(second), second.has_more]).toEqual([[requestIds.old], false]);
    expect(await get({ top_k: 2, offset: 3 })).toMatchObject({ sessions: [], has_more: false });
  });

  test("bad values are 422s naming the field; so are filters it does not have", async () => {
    for (const [body, field] of [
      [{ offset: -1 }, "offset"],
      [{ offset: 1.5 }, "offset"],
      [{ session_id: "" }, "session_id"],
      [{ request_id: ["a"] }, "request_id"],
      [{ source: "no spaces allowed" }, "source"],
      [{ start_time: "2024-13-45" }, "start_time"],
      [{ start_time: t0, end_time: t0 - 1 }, "end_time"],
      [{ agent_version: "v1" }, "agent_version"],
    ] as const) {
      await expect422("/api/get_requests", { user_id: "ana", ...body }, field);
    }
  });
});
