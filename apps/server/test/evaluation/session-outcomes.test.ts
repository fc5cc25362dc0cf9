import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

let sessions = 0;
const newSession = () => `session-${++sessions}-${crypto.randomUUID().slice(0, 6)}`;

async function publish(sessionId: string, userId: string, source: string, content = "hello") {
  const response = await svc.call("POST", "/api/publish_interaction", {
    user_id: userId,
    session_id: sessionId,
    source,
    interaction_data_list: [{ role: "user", content }],
  });
  expect(response.status).toBe(200);
  svc.clock.now += 1;
  return response.body.request_id as string;
}

const report = (body: object) => svc.call("POST", "/api/session_outcome", body);
const outcomes = async (filters: object = {}) => (await svc.call("POST", "/api/get_session_outcomes", filters)).body.outcomes;
const storedRows = async (sessionId: string) => (await svc.db.query("SELECT outcome_id FROM session_outcomes WHERE session_id = $1", [sessionId])).length;

describe("POST /api/session_outcome", () => {
  test("a session without a published request answers 404 and stores nothing", async () => {
    const sessionId = newSession();
    const response = await report({ session_id: sessionId, outcome: "success", occurred_at: 100 });
    expect(response.status).toBe(404);
    expect(response.body.detail).toContain("publish one");
    expect(await storedRows(sessionId)).toBe(0);
  });

  test("records once, with user and source from the session's earliest request, and the service's identities", async () => {
    const sessionId = newSession();
    await publish(sessionId, "ana", "chat");
    await publish(sessionId, "ana", "email");
    const response = await report({ session_id: sessionId, outcome: "success", occurred_at: 1_000, label: "resolved", value: 0.5, metadata: { ticket: 7 } });
    expect(response).toEqual({
      status: 200,
      body: {
        success: true,
        recorded: true,
        outcome_id: expect.any(String),
        outcome_revision: 1,
        outcome_contract_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        finalized_trajectory_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    const [stored] = await outcomes({ user_id: "ana", label: "resolved" });
    expect(stored).toEqual({
      session_id: sessionId,
      outcome: "success",
      occurred_at: 1_000,
      label: "resolved",
      value: 0.5,
      metadata: { ticket: 7 },
      source: "chat",
      user_id: "ana",
      is_inferred: false,
      outcome_id: response.body.outcome_id,
      outcome_revision: 1,
      outcome_contract_digest: response.body.outcome_contract_digest,
      finalized_trajectory_digest: response.body.finalized_trajectory_digest,
      trajectory_through_request_id: null,
      created_at: expect.any(Number),
    });
  });

  test("an exact retry answers recorded false with the same identities; any change answers conflicting_finalization and changes nothing", async () => {
    const sessionId = newSession();
    await publish(sessionId, "ben", "chat");
    const body = { session_id: sessionId, outcome: "failure", occurred_at: 2_000, metadata: { b: 1, a: [1, 2] } };
    const first = await report(body);
    // The same metadata with its keys in another order is the same report.
    const retry = await report({ ...body, metadata: { a: [1, 2], b: 1 } });
    expect(retry.body).toEqual({ ...first.body, recorded: false });
    for (const change of [{ outcome: "success" }, { occurred_at: 2_001 }, { label: "new" }, { value: 1 }, { metadata: { b: 2 } }]) {
      const refused = await report({ ...body, ...change });
      expect(refused.body).toEqual({ ...first.body, success: false, recorded: false, reason: "conflicting_finalization" });
    }
    // A request published to the session afterwards changes the trajectory the outcome finalized.
    await publish(sessionId, "ben", "chat");
    expect((await report(body)).body.reason).toBe("conflicting_finalization");
    expect((await outcomes({ user_id: "ben" })).map((o: { outcome: string; label: string | null }) => [o.outcome, o.label])).toEqual([["failure", null]]);
    expect(await storedRows(sessionId)).toBe(1);
  });

  test("concurrent first reports record exactly one row", async () => {
    const sessionId = newSession();
    await publish(sessionId, "cy", "chat");
    const answers = await Promise.all(Array.from({ length: 8 }, () => report({ session_id: sessionId, outcome: "success", occurred_at: 3_000 })));
    expect(answers.filter((answer) => answer.body.recorded).length).toBe(1);
    expect(answers.every((answer) => answer.body.success && answer.body.outcome_id === answers[0]!.body.outcome_id)).toBe(true);
    expect(await storedRows(sessionId)).toBe(1);
  });

  test("bad input answers 422 naming the field; user_id and source are never accepted from the caller", async () => {
    const sessionId = newSession();
    await publish(sessionId, "dee", "chat");
    const cases: [object, string][] = [
      [{ session_id: sessionId, outcome: "great", occurred_at: 1 }, "outcome"],
      [{ session_id: " ", outcome: "success", occurred_at: 1 }, "session_id"],
      [{ session_id: sessionId, outcome: "success", occurred_at: -1 }, "occurred_at"],
      [{ session_id: sessionId, outcome: "success", occurred_at: 1, user_id: "mallory" }, "user_id"],
      [{ session_id: sessionId, outcome: "success", occurred_at: 1, source: "forged" }, "source"],
      [{ session_id: sessionId, outcome: "success", occurred_at: 1, metadata: { big: "x".repeat(20_000) } }, "metadata"],
    ];
    for (const [body, field] of cases) {
      const response = await report(body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(JSON.stringify(response.body.detail)).toContain(field);
    }
    expect(await storedRows(sessionId)).toBe(0);
  });
});

describe("POST /api/get_session_outcomes", () => {
  test("filters by user, source, outcome, label and the time of occurrence, newest first, top_k", async () => {
    const a = newSession();
    const b = newSession();
    const c = newSession();
    await publish(a, "eve", "chat");
    await publish(b, "eve", "voice");
    await publish(c, "fay", "chat");
    await report({ session_id: a, outcome: "success", occurred_at: 10_000, label: "x" });
    await report({ session_id: b, outcome: "failure", occurred_at: 10_010 });
    await report({ session_id: c, outcome: "success", occurred_at: 10_020, label: "x" });
    const ids = (list: { session_id: string }[]) => list.map((o) => o.session_id);
    expect(ids(await outcomes({ user_id: "eve" }))).toEqual([b, a]);
    expect(ids(await outcomes({ source: "voice" }))).toEqual([b]);
    expect(ids(await outcomes({ outcome: "success", start_time: 10_000, end_time: 10_020 }))).toEqual([c, a]);
    expect(ids(await outcomes({ label: "x", top_k: 1 }))).toEqual([c]);
    expect(ids(await outcomes({ start_time: 10_005, end_time: 10_015 }))).toEqual([b]);
    expect(ids(await outcomes({ session_ids: [a, c] }))).toEqual([c, a]);
    expect(ids(await outcomes({ session_ids: [a, b, c], top_k: 1, offset: 1 }))).toEqual([b]);
    const refused = await svc.call("POST", "/api/get_session_outcomes", { start_time: 5, end_time: 4 });
    expect(refused.status).toBe(422);
  });

  test("delete_session keeps the session's outcome", async () => {
    const sessionId = newSession();
    await publish(sessionId, "gus", "chat");
    await report({ session_id: sessionId, outcome: "unknown", occurred_at: 20_000 });
    expect((await svc.call("DELETE", "/api/delete_session", { session_id: sessionId })).status).toBe(200);
    expect((await outcomes({ user_id: "gus" })).map((o: { session_id: string }) => o.session_id)).toEqual([sessionId]);
  });
});
