import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
const requestIds: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService();
  const publish = async (name: string, userId: string, sessionId: string, contents: string[]) => {
    const published = await svc.client.interactions.publish({
      user_id: userId,
      session_id: sessionId,
      interaction_data_list: contents.map((content, i) => ({ role: i % 2 ? "Agent" : "User", content })),
    });
    requestIds[name] = published.request_id;
    svc.clock.now += 10;
  };
  await publish("morning", "ana", "s-1", ["My flight to Tokyo leaves at dawn", "I will remind you the evening before"]);
  await publish("lunch", "ana", "s-1", ["Book a table for two at an Italian place", "Booked Trattoria Roma for 1pm"]);
  await publish("evening", "ana", "s-2", ["Which vaccines do I need for Japan?", "None are required for Japan"]);
  await publish("other", "ben", "s-9", ["Order more printer toner"]);
  // Publishing leaves the vectors to the learning step; the vector arm finds interactions once it ran.
  await svc.learningIdle();
});
afterAll(() => svc.close());

const contents = (result: { interactions: { content: string }[] }) => result.interactions.map((i) => i.content);
const search = (input: ClientInput<"interactions", "search">) => svc.client.interactions.search(input);

describe("reading interactions", () => {
  test("get_interactions returns the user's most recent interactions, newest first, capped at top_k", async () => {
    const result = await svc.client.interactions.get({ user_id: "ana", top_k: 3 });
    expect(contents(result)).toEqual(["None are required for Japan", "Which vaccines do I need for Japan?", "Booked Trattoria Roma for 1pm"]);
  });

  test("get_all_interactions returns every user's, newest first, and takes limit from the query", async () => {
    expect(contents(await svc.client.interactions.getAll({ limit: 2 }))).toEqual(["Order more printer toner", "None are required for Japan"]);
    expect((await svc.call("GET", "/api/get_all_interactions?limit=0")).status).toBe(422);
    expect((await svc.call("GET", "/api/get_all_interactions?limit=abc")).body.message).toContain("limit");
  });

  test("search_interactions finds by meaning, by words, or both, within the user", async () => {
    expect(contents(await search({ user_id: "ana", query: "journey to Asia by air", search_mode: "vector", top_k: 2 }))).toContain(
      "My flight to Tokyo leaves at dawn",
    );
    expect(contents(await search({ user_id: "ana", query: "Trattoria", search_mode: "fts" }))).toEqual(["Booked Trattoria Roma for 1pm"]);
    expect(contents(await search({ user_id: "ana", query: "toner" }))).not.toContain("Order more printer toner");
  });

  test("search_interactions with most_recent_k only searches that many of the newest", async () => {
    expect(contents(await search({ user_id: "ana", query: "Tokyo flight", search_mode: "fts", most_recent_k: 2 }))).toEqual([]);
    expect(contents(await search({ user_id: "ana", query: "Tokyo flight", search_mode: "fts", most_recent_k: 6 }))).toEqual([
      "My flight to Tokyo leaves at dawn",
    ]);
  });

  test("search_interactions refuses bad input naming the field", async () => {
    for (const [body, field] of [
      [{ query: "x" }, "user_id"],
      [{ user_id: "ana", query: "  " }, "query"],
      [{ user_id: "ana", query: "x", top_k: 0 }, "top_k"],
      [{ user_id: "ana", query: "x", top_k: 101 }, "top_k"],
      [{ user_id: "ana", query: "x", most_recent_k: 0 }, "most_recent_k"],
      [{ user_id: "ana", query: "x", search_mode: "semantic" }, "search_mode"],
    ] as const) {
      const response = await svc.call("POST", "/api/search_interactions", body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
  });

  test("get_requests groups the user's requests and their interactions by session", async () => {
    const sessions = (await svc.client.requests.get({ user_id: "ana" })).sessions.map((s) => ({
      session: s.session_id,
      requests: s.requests.map((r) => [r.request.request_id, r.interactions.length]),
    }));
    expect(sessions).toEqual([
      { session: "s-2", requests: [[requestIds.evening!, 2]] },
      {
        session: "s-1",
        requests: [
          [requestIds.lunch!, 2],
          [requestIds.morning!, 2],
        ],
      },
    ]);
    const limited = await svc.client.requests.get({ user_id: "ana", top_k: 1 });
    expect(limited.sessions.map((s) => s.session_id)).toEqual(["s-2"]);
  });
});

describe("deleting interactions", () => {
  test("delete_request removes the request and its interactions only", async () => {
    expect(await svc.client.requests.delete({ request_id: requestIds.lunch! })).toMatchObject({ success: true, deleted_requests: 1, deleted_interactions: 2 });
    expect(contents(await svc.client.interactions.get({ user_id: "ana" }))).not.toContain("Booked Trattoria Roma for 1pm");
    expect((await svc.client.requests.delete({ request_id: requestIds.lunch! })).deleted_requests).toBe(0);
    expect((await svc.call("DELETE", "/api/delete_request", {})).status).toBe(422);
  });

  test("delete_session removes every request of the session", async () => {
    expect(await svc.client.requests.deleteSession({ session_id: "s-1" })).toMatchObject({ deleted_requests: 1, deleted_interactions: 2 });
    expect(contents(await svc.client.interactions.get({ user_id: "ana" }))).toEqual(["None are required for Japan", "Which vaccines do I need for Japan?"]);
  });

  test("delete_requests_by_ids counts the requests it removed and refuses an empty list", async () => {
    expect(await svc.client.requests.deleteByIds({ request_ids: [requestIds.evening!, "unknown"] })).toMatchObject({ success: true, deleted_count: 1 });
    const refused = await svc.call("DELETE", "/api/delete_requests_by_ids", { request_ids: [] });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain("request_ids");
  });

  test("delete_all_interactions empties the project", async () => {
    expect(await svc.client.interactions.deleteAll()).toMatchObject({ success: true, deleted_count: 1 });
    expect((await svc.client.interactions.getAll()).interactions).toEqual([]);
    expect((await svc.client.interactions.learningStatus({ request_id: requestIds.other! })).status).toBe("not_tracked");
  });
});
