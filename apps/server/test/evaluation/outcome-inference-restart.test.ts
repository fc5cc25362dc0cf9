import { afterAll, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";
import { type FakeLlmRequest, startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { holdCall, SATISFIED_PHRASE, scriptedReply } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";

let hold: ReturnType<typeof holdCall> | undefined;
const llm = await startFakeLlmServer(async (request: FakeLlmRequest) => {
  await hold?.wait(request);
  return scriptedReply(request);
});
afterAll(() => llm.close());

const llmEnv = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };
const inferenceCalls = () => llm.requests.filter((request) => request.schemaName === "session_outcome_inference").length;

const served = {
  role: "Agent",
  content: "Open billing, then export.",
  retrieved_learnings: [{ kind: "user_playbook", learning_id: "41" }],
};

async function publish(deployment: Deployment, sessionId: string, turns: object[]) {
  const published = await deployment.post("/api/publish_interaction", { user_id: "ana", session_id: sessionId, interaction_data_list: turns });
  expect(published.status).toBe(200);
}

async function inferredOutcome(deployment: Deployment, sessionId: string, timeoutMs: number) {
  return until(async () => {
    const outcomes = (await deployment.post("/api/get_session_outcomes", { user_id: "ana" })).body.outcomes;
    return outcomes.find((row: { session_id: string; is_inferred: boolean }) => row.session_id === sessionId && row.is_inferred);
  }, timeoutMs);
}

// The inference timer is durable: a session accepted before a kill of every process is inferred
// after the restart (the reconciler's pass embedded, the Temporal timer in full mode), and a kill in
// the middle of the inference infers it again from the start, saving one outcome.
test(`a session's outcome inference survives kills before its quiet ends and in the middle of the inference (${testMode})`, async () => {
  const deployment = await startableDeployment("inference-restart", { ...llmEnv, OUTCOME_INFERENCE_QUIET_SECONDS: "3" });
  try {
    await deployment.start();
    const sessionId = `restart-${crypto.randomUUID()}`;
    await publish(deployment, sessionId, [{ role: "User", content: "How do I export my invoices?" }, served]);
    hold = holdCall((request) => request.schemaName === "session_outcome_inference");
    await deployment.kill();

    await deployment.start();
    await hold.reached;
    await deployment.kill();
    hold.release();
    hold = undefined;

    await deployment.start();
    const inferred = await inferredOutcome(deployment, sessionId, 90_000);
    expect(inferred).toMatchObject({ outcome: "unknown", outcome_revision: 1 });
    const rows = (await deployment.post("/api/get_session_outcomes", { user_id: "ana" })).body.outcomes;
    expect(rows.filter((row: { session_id: string }) => row.session_id === sessionId)).toHaveLength(1);
    expect(inferenceCalls()).toBeGreaterThanOrEqual(2);
  } finally {
    await deployment.close();
  }
}, 180_000);

// Ten minutes of quiet is far away here: the user's reply after the playbook was used wakes the
// sleeping timer (a signal to the workflow in full mode), so the outcome is inferred at once.
test(`the user's reply after a playbook was used wakes the session's sleeping timer (${testMode})`, async () => {
  const deployment = await startableDeployment("inference-reply", { ...llmEnv, OUTCOME_INFERENCE_QUIET_SECONDS: "3600" });
  try {
    await deployment.start();
    const sessionId = `reply-${crypto.randomUUID()}`;
    await publish(deployment, sessionId, [{ role: "User", content: "How do I export my invoices?" }, served]);
    await Bun.sleep(1_000);
    await publish(deployment, sessionId, [{ role: "User", content: SATISFIED_PHRASE }]);
    expect(await inferredOutcome(deployment, sessionId, 60_000)).toMatchObject({ outcome: "success", outcome_revision: 1 });
  } finally {
    await deployment.close();
  }
}, 120_000);
