import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../../test/support/service.ts";

let svc: TestService;
const requestIds: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService();
  const publish = async (name: string, userId: string, sessionId: string, contents: string[]) => {
    const response = await svc.call("POST", "/api/publish_interaction", {
      user_id: userId,
      session_id: sessionId,
      interaction_data_list: contents.map((content, i) => ({ role: i % 2 ? "Agent" : "User", content })),
    });
    expect(response.status).toBe(200);
    requestIds[name] = response.body.request_id;
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

const contents = (body: any) => body.interactions.map((i: any) => i.content);

describe("reading interactions", () => {
  test("get_interactions returns the user's most recent interactions, newest first, capped at top_k", async () => {
    const response = await svc.call("POST", "/api/get_interactions", { user_id: "ana", top_k: 3 });
    expect(response.status).toBe(200);
    expect(contents(response.body)).toEqual(["None are required for Japan", "Which vaccines do I need for Japan?", "Booked Trattoria Roma for 1pm"]);
  });

  test("get_all_interactions returns every user's, newest first, and takes limit from the query", async () => {
    const response = await svc.call("GET", "/api/get_all_interactions?limit=2");
    expect(contents(response.body)).toEqual(["Order more printer toner", "None are required for Japan"]);
    expect((await svc.call("GET", "/api/get_all_interactions?limit=0")).status).toBe(422);
    expect((await svc.call("GET", "/api/get_all_interactions?limit=abc")).body.message).toContain("limit");
  });

  test("search_interactions finds by meaning, by words, or both, within the user", async () => {
    const vector = await svc.call("POST", "/api/search_interactions", { user_id: "ana", query: "travel to Asia", search_mode: "vector", top_k: 2 });
    expect(contents(vector.body)).toContain("My flight to Tokyo leaves at dawn");
    const fts = await svc.call("POST", "/api/search_interactions", { user_id: "ana", query: "Trattoria", search_mode: "fts" });
    expect(contents(fts.body)).toEqual(["Booked Trattoria Roma for 1pm"]);
    const hybrid = await svc.call("POST", "/api/search_interactions", { user_id: "ana", query: "toner" });
    expect(contents(hybrid.body)).not.toContain("Order more printer toner");
  });

  test("search_interactions with most_recent_k only searches that many of the newest", async () => {
    const response = await svc.call("POST", "/api/search_interactions", { user_id: "ana", query: "Tokyo flight", search_mode: "fts", most_recent_k: 2 });
    expect(contents(response.body)).toEqual([]);
    const wider = await svc.call("POST", "/api/search_interactions", { user_id: "ana", query: "Tokyo flight", search_mode: "fts", most_recent_k: 6 });
    expect(contents(wider.body)).toEqual(["My flight to Tokyo leaves at dawn"]);
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
    const response = await svc.call("POST", "/api/get_requests", { user_id: "ana" });
    expect(response.status).toBe(200);
    const sessions = response.body.sessions.map((s: any) => ({
      session: s.session_id,
      requests: s.requests.map((r: any) => [r.request.request_id, r.interactions.length]),
    }));
    expect(sessions).toEqual([
      { session: "s-2", requests: [[requestIds.evening, 2]] },
      { session: "s-1", requests: [[requestIds.lunch, 2], [requestIds.morning, 2]] },
    ]);
    const limited = await svc.call("POST", "/api/get_requests", { user_id: "ana", top_k: 1 });
    expect(limited.body.sessions.map((s: any) => s.session_id)).toEqual(["s-2"]);
  });
});

describe("deleting interactions", () => {
  test("delete_request removes the request and its interactions only", async () => {
    const response = await svc.call("DELETE", "/api/delete_request", { request_id: requestIds.lunch });
    expect(response.body).toMatchObject({ success: true, deleted_requests: 1, deleted_interactions: 2 });
    expect(contents((await svc.call("POST", "/api/get_interactions", { user_id: "ana" })).body)).not.toContain("Booked Trattoria Roma for 1pm");
    expect((await svc.call("DELETE", "/api/delete_request", { request_id: requestIds.lunch })).body.deleted_requests).toBe(0);
    expect((await svc.call("DELETE", "/api/delete_request", {})).status).toBe(422);
  });

  test("delete_session removes every request of the session", async () => {
    const response = await svc.call("DELETE", "/api/delete_session", { session_id: "s-1" });
    expect(response.body).toMatchObject({ deleted_requests: 1, deleted_interactions: 2 });
    expect(contents((await svc.call("POST", "/api/get_interactions", { user_id: "ana" })).body)).toEqual(["None are required for Japan", "Which vaccines do I need for Japan?"]);
  });

  test("delete_requests_by_ids counts the requests it removed and refuses an empty list", async () => {
    const response = await svc.call("DELETE", "/api/delete_requests_by_ids", { request_ids: [requestIds.evening, "unknown"] });
    expect(response.body).toMatchObject({ success: true, deleted_count: 1 });
    const refused = await svc.call("DELETE", "/api/delete_requests_by_ids", { request_ids: [] });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain("request_ids");
  });

  test("delete_all_interactions empties the project", async () => {
    const response = await svc.call("DELETE", "/api/delete_all_interactions");
    expect(response.body).toMatchObject({ success: true, deleted_count: 1 });
    expect((await svc.call("GET", "/api/get_all_interactions")).body.interactions).toEqual([]);
    expect((await svc.call("GET", `/api/learning_status?request_id=${requestIds.other}`)).body.status).toBe("not_tracked");
  });
});
