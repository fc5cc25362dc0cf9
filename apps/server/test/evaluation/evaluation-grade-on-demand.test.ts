import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GRADE_ON_DEMAND_CACHE_SECONDS } from "@als/core";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
beforeAll(async () => {
  scripted = await startScriptedLlm();
  svc = await startTestService({ llm: scripted.llm });
});
afterAll(async () => {
  await svc.close();
  await scripted.server.close();
});

const grade = (body: object) => svc.call("POST", "/api/evaluations/grade_on_demand", body);

async function publishSession(content: string) {
  const sessionId = `on-demand-${crypto.randomUUID().slice(0, 8)}`;
  const response = await svc.call("POST", "/api/publish_interaction", {
    user_id: "cai",
    session_id: sessionId,
    interaction_data_list: [
      { role: "User", content },
      { role: "Agent", content: "Here you go." },
    ],
  });
  expect(response.status).toBe(200);
  return sessionId;
}

describe("POST /api/evaluations/grade_on_demand", () => {
  test("grades the session now, without waiting for its inactivity delay", async () => {
    const sessionId = await publishSession("Summarise my invoice");
    const response = await grade({ session_id: sessionId, agent_version: "agent-v7", evaluation_name: "spot check" });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, session_id: sessionId, cached: false, skipped_reason: null, result_id: expect.any(Number) });
    expect(response.body.result).toMatchObject({
      result_id: response.body.result_id,
      session_id: sessionId,
      agent_version: "agent-v7",
      evaluation_name: "spot check",
      origin: "on_demand",
      is_success: true,
    });
    const listed = (await svc.call("POST", "/api/get_agent_success_evaluation_results", { session_id: sessionId })).body.agent_success_evaluation_results;
    expect(listed.map((r: { result_id: number }) => r.result_id)).toEqual([response.body.result_id]);
  });

  test("a repeat within 24 hours answers cached true with the original result_id; another agent_version or a day later grades again", async () => {
    const sessionId = await publishSession("Summarise my invoice");
    const first = await grade({ session_id: sessionId, agent_version: "agent-v7" });
    svc.clock.now += GRADE_ON_DEMAND_CACHE_SECONDS - 10;
    const repeat = await grade({ session_id: sessionId, agent_version: "agent-v7" });
    expect(repeat.body).toMatchObject({ cached: true, result_id: first.body.result_id });
    // Graded once on demand. Not counted in judge calls: with the clock a day on, the sessions'
    // sampled grading falls due, and the reconciler may call the judge for it meanwhile.
    const [onDemand] = await svc.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM agent_success_evaluations WHERE session_id = $1 AND agent_version = 'agent-v7' AND origin = 'on_demand'",
      [sessionId],
    );
    expect(onDemand!.n).toBe(1);

    const other = await grade({ session_id: sessionId, agent_version: "agent-v8" });
    expect(other.body.cached).toBe(false);
    expect(other.body.result_id).not.toBe(first.body.result_id);

    svc.clock.now += 20;
    const later = await grade({ session_id: sessionId, agent_version: "agent-v7" });
    expect(later.body.cached).toBe(false);
    expect(later.body.result_id).not.toBe(first.body.result_id);
  });

  test("two calls at once for the same session and agent version save one grade", async () => {
    const sessionId = await publishSession("Two at once");
    const [a, b] = await Promise.all([grade({ session_id: sessionId, agent_version: "v1" }), grade({ session_id: sessionId, agent_version: "v1" })]);
    expect(a.body.result_id).toBe(b.body.result_id);
    expect([a.body.cached, b.body.cached].sort()).toEqual([false, true]);
    const [stored] = await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM agent_success_evaluations WHERE session_id = $1", [sessionId]);
    expect(stored!.n).toBe(1);
  });

  test("a session never published answers 404; blank fields 422 naming them", async () => {
    const unknown = await grade({ session_id: "never-published", agent_version: "v1" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain("publish one");
    for (const [body, field] of [
      [{ session_id: " ", agent_version: "v1" }, "session_id"],
      [{ session_id: "s", agent_version: "" }, "agent_version"],
      [{ session_id: "s" }, "agent_version"],
    ] as const) {
      const response = await grade(body);
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body.detail)).toContain(field);
    }
  });

  test("without an LLM provider: 503 naming the LLM and what to configure", async () => {
    const bare = await startTestService();
    try {
      await bare.call("POST", "/api/publish_interaction", { user_id: "cai", session_id: "s-bare", interaction_data_list: [{ role: "User", content: "hi" }] });
      const response = await bare.call("POST", "/api/evaluations/grade_on_demand", { session_id: "s-bare", agent_version: "v1" });
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ error: "llm_unavailable", component: "llm" });
      expect(response.body.detail).toContain("LLM_PROVIDER");
    } finally {
      await bare.close();
    }
  });
});
