import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_SESSION_INACTIVITY_SECONDS } from "@als/core";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
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

let sessions = 0;
const newSession = () => `eval-${++sessions}-${crypto.randomUUID().slice(0, 8)}`;

async function publish(sessionId: string, turns: { role: string; content: string }[], extra: object = {}) {
  const response = await svc.call("POST", "/api/publish_interaction", {
    user_id: "ana",
    session_id: sessionId,
    source: "chat",
    agent_version: "agent-v3",
    interaction_data_list: turns,
    ...extra,
  });
  expect(response.status).toBe(200);
  return response.body.request_id as string;
}

const results = async (filters: object = {}) => (await svc.call("POST", "/api/get_agent_success_evaluation_results", filters)).body;
const resultsOf = async (sessionId: string) => (await results({ session_id: sessionId })).agent_success_evaluation_results;
const judgeCalls = () => scripted.server.requests.filter((r) => r.schemaName === "agent_success_evaluation").length;

/** Moves the service's clock past the inactivity delay and lets the reconciler grade what is due. */
async function quietFor(seconds: number) {
  svc.clock.now += seconds;
  svc.reconciler.poke();
  await svc.learningIdle();
}

const setRates = (rates: object) => svc.call("POST", "/api/update_config", { agent_success_config: rates });

describe("agent success evaluation", () => {
  test("a sampled session is graded once it has been quiet for the inactivity delay, not before", async () => {
    const sessionId = newSession();
    const requestId = await publish(sessionId, [
      { role: "User", content: "How do I reset my password?" },
      { role: "Agent", content: "Open settings, then security, then reset." },
    ]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS - 60);
    expect(await resultsOf(sessionId)).toEqual([]);
    expect((await results()).pending_session_count).toBeGreaterThan(0);

    await quietFor(120);
    const [result] = await resultsOf(sessionId);
    expect(result).toEqual({
      result_id: expect.any(Number),
      user_id: "ana",
      session_id: sessionId,
      agent_version: "agent-v3",
      source: "chat",
      evaluation_only: false,
      evaluation_name: null,
      origin: "sampled",
      is_success: true,
      success_score: 0.9,
      failure_type: null,
      failure_reason: null,
      number_of_correction_per_session: 0,
      user_turns_to_resolution: 1,
      is_escalated: false,
      regular_vs_shadow: null,
      trajectory_through_request_id: requestId,
      trajectory_interaction_count: 2,
      judge_prompt: "agent-success-evaluation@v1",
      session_started_at: expect.any(Number),
      created_at: svc.clock.now,
    });
    // Token cost is recorded per stage, like learning's, on the session's latest request.
    const usage = await svc.db.query<{ stage: string; input_tokens: number }>(
      "SELECT stage, input_tokens FROM llm_usage WHERE request_id = $1 AND stage = 'agent_success_evaluation'",
      [requestId],
    );
    expect(usage).toEqual([{ stage: "agent_success_evaluation", input_tokens: expect.any(Number) }]);
    expect(usage[0]!.input_tokens).toBeGreaterThan(0);
    const costs = (await svc.call("POST", "/api/learning/costs", {})).body;
    expect(costs.costs.map((row: { stage: string }) => row.stage)).toContain("agent_success_evaluation");
  });

  test("the judge's failure, corrections and escalation are kept; filters narrow the results", async () => {
    const sessionId = newSession();
    await publish(sessionId, [
      { role: "User", content: "Book a table for two" },
      { role: "Agent", content: "Booked for four." },
      { role: "User", content: "Actually that is wrong, I said two. Let me talk to a human." },
    ]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    const [result] = await resultsOf(sessionId);
    expect(result).toMatchObject({
      is_success: false,
      success_score: 0.2,
      failure_type: "wrong_answer",
      failure_reason: "The user said the answer was wrong",
      number_of_correction_per_session: 1,
      user_turns_to_resolution: null,
      is_escalated: true,
    });
    const failures = (await results({ is_success: false })).agent_success_evaluation_results;
    expect(failures.map((r: { session_id: string }) => r.session_id)).toContain(sessionId);
    expect((await results({ is_success: false, agent_version: "agent-v9" })).agent_success_evaluation_results).toEqual([]);
    expect((await results({ source: "email" })).agent_success_evaluation_results).toEqual([]);
  });

  test("a publish before the delay ends moves it; a session that goes on after grading is graded again, one current verdict", async () => {
    const sessionId = newSession();
    await publish(sessionId, [{ role: "User", content: "What is the refund window?" }]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS - 100);
    await publish(sessionId, [{ role: "Agent", content: "Thirty days." }]);
    await quietFor(200);
    expect(await resultsOf(sessionId)).toEqual([]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS);
    const [first] = await resultsOf(sessionId);
    expect(first.trajectory_interaction_count).toBe(2);

    await publish(sessionId, [{ role: "User", content: "That is wrong, it was fourteen days." }]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    const current = await resultsOf(sessionId);
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({ is_success: false, trajectory_interaction_count: 3 });
    expect(current[0].result_id).not.toBe(first.result_id);
  });

  test("sampling_rate 0 grades nothing; evaluation_only sessions follow evaluation_only_sampling_rate, else sampling_rate", async () => {
    const calls = judgeCalls();
    expect((await setRates({ sampling_rate: 0, evaluation_only_sampling_rate: null, retrieved_learning_sampling_rate: 0 })).status).toBe(200);
    const plain = newSession();
    const evaluationOnly = newSession();
    await publish(plain, [{ role: "User", content: "hello" }]);
    await publish(evaluationOnly, [{ role: "User", content: "hello" }], { evaluation_only: true });
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    expect(judgeCalls()).toBe(calls);

    // null inherits sampling_rate; a rate of its own wins for evaluation-only sessions only.
    await setRates({ sampling_rate: 0, evaluation_only_sampling_rate: 1 });
    const plain2 = newSession();
    const evaluationOnly2 = newSession();
    await publish(plain2, [{ role: "User", content: "hello" }]);
    await publish(evaluationOnly2, [{ role: "User", content: "hello" }], { evaluation_only: true });
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    expect(await resultsOf(plain2)).toEqual([]);
    expect((await resultsOf(evaluationOnly2))[0]).toMatchObject({ evaluation_only: true, origin: "sampled" });

    await setRates({ sampling_rate: 1, evaluation_only_sampling_rate: null });
    const evaluationOnly3 = newSession();
    await publish(evaluationOnly3, [{ role: "User", content: "hello" }], { evaluation_only: true });
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    expect(await resultsOf(evaluationOnly3)).toHaveLength(1);
  });

  test("a rate between 0 and 1 grades about that share of sessions, the same ones every time", async () => {
    await setRates({ sampling_rate: 0.3 });
    const ids = Array.from({ length: 60 }, newSession);
    for (const id of ids) await publish(id, [{ role: "User", content: "hi" }]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    const graded = new Set<string>();
    for (const id of ids) if ((await resultsOf(id)).length > 0) graded.add(id);
    expect(graded.size).toBeGreaterThan(6);
    expect(graded.size).toBeLessThan(32);
    await setRates({ sampling_rate: 1 });
  });

  test("a provider's failure leaves the session waiting with the failure noted, and a retry grades it", async () => {
    let failing = true;
    scripted.server.setHandler((request: FakeLlmRequest) =>
      failing && request.schemaName === "agent_success_evaluation" ? { status: 500, error: { message: "overloaded" } } : scriptedReply(request),
    );
    try {
      const sessionId = newSession();
      await publish(sessionId, [{ role: "User", content: "hello there" }]);
      await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
      expect(await resultsOf(sessionId)).toEqual([]);
      const [waiting] = await svc.db.query<{ status: string; failure: string }>("SELECT status, failure FROM evaluation_sessions WHERE session_id = $1", [
        sessionId,
      ]);
      expect(waiting!.status).toBe("waiting");
      expect(waiting!.failure).toContain("grading failed, retrying");
      failing = false;
      await quietFor(600);
      expect(await resultsOf(sessionId)).toHaveLength(1);
    } finally {
      scripted.server.setHandler(scriptedReply);
    }
  });

  test("the time range must be ordered, the limit positive: 422 naming the field", async () => {
    const backwards = await svc.call("POST", "/api/get_agent_success_evaluation_results", { start_time: 200, end_time: 100 });
    expect(backwards.status).toBe(422);
    expect(JSON.stringify(backwards.body.detail)).toContain("end_time");
    const zero = await svc.call("POST", "/api/get_agent_success_evaluation_results", { limit: 0 });
    expect(zero.status).toBe(422);
    expect(JSON.stringify(zero.body.detail)).toContain("limit");
  });
});

describe("without an LLM provider", () => {
  test("sampled sessions wait, never dropped, the endpoint says why; configured later, they are graded", async () => {
    const bare = await startTestService();
    try {
      const sessionId = `bare-${crypto.randomUUID()}`;
      expect(
        (
          await bare.call("POST", "/api/publish_interaction", {
            user_id: "ben",
            session_id: sessionId,
            interaction_data_list: [{ role: "User", content: "hello" }],
          })
        ).status,
      ).toBe(200);
      bare.clock.now += DEFAULT_SESSION_INACTIVITY_SECONDS + 1;
      bare.reconciler.poke();
      await bare.learningIdle();
      const waiting = (await bare.call("POST", "/api/get_agent_success_evaluation_results", {})).body;
      expect(waiting.agent_success_evaluation_results).toEqual([]);
      expect(waiting.pending_session_count).toBe(1);
      expect(waiting.msg).toContain("no LLM provider is configured");
      expect((await bare.call("POST", "/api/get_retrieved_learning_evaluation_results", {})).body.msg).toContain("no LLM provider is configured");

      // A restart with a provider configured, as this process sees it: the waiting session is graded.
      bare.deps.llm = scripted.llm;
      bare.reconciler.poke();
      await bare.learningIdle();
      const graded = (await bare.call("POST", "/api/get_agent_success_evaluation_results", {})).body;
      expect(graded.agent_success_evaluation_results.map((r: { session_id: string }) => r.session_id)).toEqual([sessionId]);
      expect(graded).toMatchObject({ pending_session_count: 0, msg: null });
    } finally {
      await bare.close();
    }
  });
});
