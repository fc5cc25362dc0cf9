import { describe, expect, test } from "bun:test";
import { DEFAULT_OUTCOME_QUIET_SECONDS } from "@als/core";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { holdCall, SATISFIED_PHRASE, scriptedReply } from "@als/test-support/scripted-llm.ts";
import { useScriptedService } from "@als/test-support/scripted-service.ts";
import { startTestService } from "@als/test-support/service.ts";

const service = useScriptedService();

let sessions = 0;
const newSession = () => `infer-${++sessions}-${crypto.randomUUID().slice(0, 8)}`;

type Turn = { role: string; content: string; retrieved_learnings?: object[]; citations?: object[] };

async function publish(sessionId: string, turns: Turn[], source = "chat") {
  const response = await service.svc.call("POST", "/api/publish_interaction", { user_id: "ana", session_id: sessionId, source, interaction_data_list: turns });
  expect(response.status).toBe(200);
  service.svc.clock.now += 1;
  return response.body.request_id as string;
}

const question = (content = "How do I export my invoices?"): Turn => ({ role: "User", content });
/** An answer the agent gave with a user playbook it was served. */
const servedAnswer = (content = "Open billing, then export."): Turn => ({
  role: "Agent",
  content,
  retrieved_learnings: [{ kind: "user_playbook", learning_id: "41" }],
});

/** Lets the reconciler run what is due, after the service's clock moved `seconds`. */
async function quietFor(seconds: number) {
  service.svc.clock.now += seconds;
  service.svc.reconciler.poke();
  await service.svc.learningIdle();
}

const outcomesOf = async (sessionId: string) =>
  (await service.svc.call("POST", "/api/get_session_outcomes", { user_id: "ana", top_k: 100 })).body.outcomes.filter(
    (row: { session_id: string }) => row.session_id === sessionId,
  );
const storedRows = (sessionId: string) =>
  service.svc.db.query<{ outcome_id: string; is_inferred: boolean; archived_at: number | null }>(
    "SELECT outcome_id, is_inferred, archived_at FROM session_outcomes WHERE session_id = $1 ORDER BY created_at, is_inferred DESC",
    [sessionId],
  );
const inferenceCalls = () => service.scripted.server.requests.filter((request) => request.schemaName === "session_outcome_inference").length;

describe("inferred outcomes", () => {
  test("a session where no playbook was served or cited is never inferred (a profile does not count)", async () => {
    const sessionId = newSession();
    const calls = inferenceCalls();
    await publish(sessionId, [question(), { role: "Agent", content: "Open billing.", retrieved_learnings: [{ kind: "profile", learning_id: "p-1" }] }]);
    await publish(sessionId, [question("And the old ones?")]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS * 2);
    expect(await outcomesOf(sessionId)).toEqual([]);
    expect(inferenceCalls()).toBe(calls);
    expect(await service.svc.db.query("SELECT 1 FROM outcome_inferences WHERE session_id = $1", [sessionId])).toEqual([]);
  });

  test("a served playbook's session is inferred after about ten minutes of quiet, not before, with user and source from its first request", async () => {
    const sessionId = newSession();
    await publish(sessionId, [question()], "chat");
    const last = await publish(sessionId, [servedAnswer()], "email");
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS - 30);
    expect(await outcomesOf(sessionId)).toEqual([]);

    await quietFor(60);
    const [inferred] = await outcomesOf(sessionId);
    expect(inferred).toEqual({
      session_id: sessionId,
      outcome: "unknown",
      occurred_at: expect.any(Number),
      label: null,
      value: null,
      metadata: { inference_reason: "the user's turns read as unknown", inference_prompt: "session-outcome-inference@v1" },
      source: "chat",
      user_id: "ana",
      is_inferred: true,
      outcome_id: expect.any(String),
      outcome_revision: 1,
      outcome_contract_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      finalized_trajectory_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      trajectory_through_request_id: last,
      created_at: expect.any(Number),
    });
    // Tokens are recorded per stage, on the last request the inference covers.
    const usage = await service.svc.db.query<{ input_tokens: number }>(
      "SELECT input_tokens FROM llm_usage WHERE request_id = $1 AND stage = 'session_outcome_inference'",
      [last],
    );
    expect(usage).toHaveLength(1);
    expect(usage[0]!.input_tokens).toBeGreaterThan(0);
  });

  test("a publish before the quiet ends moves it; a publish after a reply keeps the session due", async () => {
    const sessionId = newSession();
    await publish(sessionId, [question(), servedAnswer()]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS - 100);
    await publish(sessionId, [servedAnswer("Or use the API.")]);
    await quietFor(200);
    expect(await outcomesOf(sessionId)).toEqual([]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS);
    expect(await outcomesOf(sessionId)).toHaveLength(1);

    // Without a provider for a moment, the reply's inference waits; an agent turn after it does not postpone it.
    const replied = newSession();
    const llm = service.svc.deps.llm;
    delete service.svc.deps.llm;
    try {
      await publish(replied, [question(), servedAnswer(), { role: "User", content: SATISFIED_PHRASE }]);
      await publish(replied, [{ role: "Agent", content: "Glad it helped." }]);
    } finally {
      service.svc.deps.llm = llm;
    }
    await quietFor(0);
    expect((await outcomesOf(replied))[0]).toMatchObject({ outcome: "success", is_inferred: true });
  });

  test("a cited playbook counts as used", async () => {
    const sessionId = newSession();
    await publish(sessionId, [
      question(),
      { role: "Agent", content: "Per our guide: billing, export.", citations: [{ kind: "agent_playbook", learning_id: 7 }] },
    ]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS + 1);
    expect((await outcomesOf(sessionId))[0]).toMatchObject({ is_inferred: true, outcome_revision: 1 });
  });

  test("the user's reply after a playbook was used is inferred at once, in the same publish or a later one", async () => {
    const later = newSession();
    await publish(later, [question(), servedAnswer()]);
    await quietFor(0);
    expect(await outcomesOf(later)).toEqual([]);
    await publish(later, [{ role: "User", content: `${SATISFIED_PHRASE}!` }]);
    await quietFor(0);
    expect((await outcomesOf(later))[0]).toMatchObject({ is_inferred: true, outcome: "success" });

    const same = newSession();
    await publish(same, [question(), servedAnswer(), { role: "User", content: "No, that is wrong." }]);
    await quietFor(0);
    expect((await outcomesOf(same))[0]).toMatchObject({ is_inferred: true, outcome: "failure" });
  });

  test("a session that goes on is inferred again: same outcome_id and revision, its trajectory advances", async () => {
    const sessionId = newSession();
    const first = await publish(sessionId, [question(), servedAnswer()]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS + 1);
    const [before] = await outcomesOf(sessionId);
    expect(before).toMatchObject({ outcome: "unknown", trajectory_through_request_id: first });

    const reply = await publish(sessionId, [{ role: "User", content: SATISFIED_PHRASE }]);
    await quietFor(0);
    const after = await outcomesOf(sessionId);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      outcome: "success",
      is_inferred: true,
      outcome_id: before.outcome_id,
      outcome_revision: 1,
      trajectory_through_request_id: reply,
    });
    expect(after[0].finalized_trajectory_digest).not.toBe(before.finalized_trajectory_digest);
    expect(await storedRows(sessionId)).toHaveLength(1);
  });

  test("a caller's outcome displaces the inferred one: a fresh outcome_id, revision 2, the inferred row archived, never inferred again", async () => {
    const sessionId = newSession();
    await publish(sessionId, [question(), servedAnswer()]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS + 1);
    const [inferred] = await outcomesOf(sessionId);

    const reported = await service.svc.call("POST", "/api/session_outcome", { session_id: sessionId, outcome: "failure", occurred_at: 1_000, label: "refund" });
    expect(reported.body).toMatchObject({ success: true, recorded: true, outcome_revision: 2 });
    expect(reported.body.outcome_id).not.toBe(inferred.outcome_id);
    expect(await outcomesOf(sessionId)).toEqual([
      expect.objectContaining({ outcome: "failure", is_inferred: false, outcome_revision: 2, trajectory_through_request_id: null }),
    ]);
    const rows = await storedRows(sessionId);
    expect(rows.find((row) => row.outcome_id === inferred.outcome_id)).toMatchObject({ is_inferred: true, archived_at: expect.any(Number) });

    // The caller's outcome is final: the session going on is not inferred again.
    const calls = inferenceCalls();
    await publish(sessionId, [{ role: "User", content: SATISFIED_PHRASE }, servedAnswer()]);
    await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS + 1);
    expect(inferenceCalls()).toBe(calls);
    expect(await outcomesOf(sessionId)).toEqual([expect.objectContaining({ outcome: "failure", outcome_revision: 2 })]);
  });

  test("a caller's report while the inference runs wins: the inference is dropped", async () => {
    const hold = holdCall((request) => request.schemaName === "session_outcome_inference");
    service.scripted.server.setHandler(async (request: FakeLlmRequest) => {
      await hold.wait(request);
      return scriptedReply(request);
    });
    try {
      const sessionId = newSession();
      await publish(sessionId, [question(), servedAnswer(), { role: "User", content: SATISFIED_PHRASE }]);
      service.svc.reconciler.poke();
      await hold.reached;
      const reported = await service.svc.call("POST", "/api/session_outcome", { session_id: sessionId, outcome: "failure", occurred_at: 5 });
      expect(reported.body).toMatchObject({ success: true, recorded: true, outcome_revision: 1 });
      hold.release();
      await service.svc.learningIdle();
      expect(await outcomesOf(sessionId)).toEqual([expect.objectContaining({ outcome: "failure", is_inferred: false, outcome_revision: 1 })]);
      expect(await storedRows(sessionId)).toHaveLength(1);
    } finally {
      service.scripted.server.setHandler(scriptedReply);
    }
  });

  test("a provider's failure leaves the session waiting with the failure noted, and a retry infers it", async () => {
    let failing = true;
    service.scripted.server.setHandler((request: FakeLlmRequest) =>
      failing && request.schemaName === "session_outcome_inference" ? { status: 500, error: { message: "overloaded" } } : scriptedReply(request),
    );
    try {
      const sessionId = newSession();
      await publish(sessionId, [question(), servedAnswer()]);
      await quietFor(DEFAULT_OUTCOME_QUIET_SECONDS + 1);
      expect(await outcomesOf(sessionId)).toEqual([]);
      const [waiting] = await service.svc.db.query<{ status: string; failure: string }>(
        "SELECT status, failure FROM outcome_inferences WHERE session_id = $1",
        [sessionId],
      );
      expect(waiting).toMatchObject({ status: "waiting", failure: expect.stringContaining("outcome inference failed, retrying") });
      failing = false;
      await quietFor(600);
      expect(await outcomesOf(sessionId)).toHaveLength(1);
    } finally {
      service.scripted.server.setHandler(scriptedReply);
    }
  });
});

describe("without an LLM provider", () => {
  test("sessions that used a playbook wait, never dropped; configured later, they are inferred", async () => {
    const bare = await startTestService();
    try {
      const sessionId = `bare-${crypto.randomUUID()}`;
      const published = await bare.call("POST", "/api/publish_interaction", {
        user_id: "ben",
        session_id: sessionId,
        interaction_data_list: [question(), servedAnswer(), { role: "User", content: SATISFIED_PHRASE }],
      });
      expect(published.status).toBe(200);
      bare.clock.now += DEFAULT_OUTCOME_QUIET_SECONDS + 1;
      bare.reconciler.poke();
      await bare.learningIdle();
      expect((await bare.call("POST", "/api/get_session_outcomes", {})).body.outcomes).toEqual([]);
      expect(await bare.db.query("SELECT status FROM outcome_inferences WHERE session_id = $1", [sessionId])).toEqual([{ status: "waiting" }]);

      bare.deps.llm = service.scripted.llm;
      bare.reconciler.poke();
      await bare.learningIdle();
      expect((await bare.call("POST", "/api/get_session_outcomes", {})).body.outcomes).toEqual([
        expect.objectContaining({ session_id: sessionId, outcome: "success", is_inferred: true }),
      ]);
    } finally {
      await bare.close();
    }
  });
});
