import { afterAll, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { type FakeLlmRequest, startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { holdCall, scriptedReply } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";

let hold: ReturnType<typeof holdCall> | undefined;
const llm = await startFakeLlmServer(async (request: FakeLlmRequest) => {
  await hold?.wait(request);
  return scriptedReply(request);
});
afterAll(() => llm.close());

const judgeCalls = () => llm.requests.filter((request) => request.schemaName === "agent_success_evaluation").length;

// The delayed grading is durable: a session accepted before a kill of every process is graded after
// the restart (the reconciler's pass embedded, the Temporal timer in full mode), and a kill in the
// middle of grading grades it again from the start, saving one verdict.
test(`a sampled session's grading survives kills before its delay ends and in the middle of grading (${testMode})`, async () => {
  const deployment = await startableDeployment("evaluation-restart", {
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
    SESSION_INACTIVITY_SECONDS: "3",
  });
  try {
    await deployment.start();
    const sessionId = `restart-${crypto.randomUUID()}`;
    const published = await deployment.post("/api/publish_interaction", {
      user_id: "ana",
      session_id: sessionId,
      interaction_data_list: [
        { role: "User", content: "Where is my parcel?" },
        { role: "Agent", content: "It arrives tomorrow." },
      ],
    });
    expect(published.status).toBe(200);
    hold = holdCall((request) => request.schemaName === "agent_success_evaluation");
    await deployment.kill();

    await deployment.start();
    await hold.reached;
    await deployment.kill();
    hold.release();
    hold = undefined;

    await deployment.start();
    const graded = await until(async () => {
      const body = (await deployment.post("/api/get_agent_success_evaluation_results", { session_id: sessionId })).body;
      return body.agent_success_evaluation_results.length > 0 ? body : undefined;
    }, 90_000);
    expect(graded.agent_success_evaluation_results).toHaveLength(1);
    expect(graded.agent_success_evaluation_results[0]).toMatchObject({ session_id: sessionId, is_success: true, origin: "sampled" });
    expect(graded.pending_session_count).toBe(0);
    expect(judgeCalls()).toBeGreaterThanOrEqual(2);
  } finally {
    await deployment.close();
  }
}, 180_000);

// A regenerate job commits session by session with its cursor: killed in the middle, it goes on
// after a restart from the last session saved and grades every session of the window once.
test(`a regenerate job survives a kill of every process in the middle of grading (${testMode})`, async () => {
  const deployment = await startableDeployment("regenerate-restart", {
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
  });
  try {
    await deployment.start();
    const from = Math.floor(Date.now() / 1000) - 1;
    for (const n of [1, 2, 3]) {
      const published = await deployment.post("/api/publish_interaction", {
        user_id: "ana",
        session_id: `regen-restart-${n}`,
        interaction_data_list: [{ role: "User", content: `question ${n}` }],
      });
      expect(published.status).toBe(200);
    }
    await Bun.sleep(1100);
    const to = Math.floor(Date.now() / 1000);
    hold = holdCall((request) => request.schemaName === "agent_success_evaluation" && request.user.includes("question 2"));
    const started = await deployment.post("/api/evaluations/regenerate", { from_ts: from, to_ts: to });
    expect(started.body.total).toBe(3);
    await hold.reached;
    await deployment.kill();
    hold.release();
    hold = undefined;

    await deployment.start();
    const status = await until(async () => {
      const body = (await (await fetch(`${deployment.url}/api/evaluations/regenerate/${started.body.job_id}`)).json()) as any;
      return body.status === "completed" ? body : undefined;
    }, 120_000);
    expect(status).toMatchObject({ total: 3, completed: 3, failed: 0, failures: [] });
    const results = (await deployment.post("/api/get_agent_success_evaluation_results", { user_id: "ana" })).body.agent_success_evaluation_results;
    expect(results.filter((r: { origin: string }) => r.origin === "regenerate")).toHaveLength(3);
  } finally {
    await deployment.close();
  }
}, 240_000);

// A cancel is recorded before it is answered: killed right after it, in the middle of grading a
// session, every process comes back to a job that stays cancelled and grades nothing more, while a
// job started after the restart runs (so the worker had its chance to take the cancelled one).
test(`a regenerate job cancelled in the middle of grading stays cancelled through a kill of every process (${testMode})`, async () => {
  const deployment = await startableDeployment("regenerate-cancel-restart", {
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
  });
  const judgedAbout = (text: string) =>
    llm.requests.filter((request) => request.schemaName === "agent_success_evaluation" && request.user.includes(text)).length;
  const statusOf = async (jobId: string) => (await (await fetch(`${deployment.url}/api/evaluations/regenerate/${jobId}`)).json()) as any;
  const publishSession = async (sessionId: string, content: string) =>
    expect(
      (await deployment.post("/api/publish_interaction", { user_id: "ana", session_id: sessionId, interaction_data_list: [{ role: "User", content }] })).status,
    ).toBe(200);
  try {
    await deployment.start();
    const from = Math.floor(Date.now() / 1000) - 1;
    for (const n of [1, 2, 3]) await publishSession(`regen-cancel-${n}`, `cancel-restart question ${n}`);
    await Bun.sleep(1100);
    const to = Math.floor(Date.now() / 1000);
    hold = holdCall((request) => request.schemaName === "agent_success_evaluation" && request.user.includes("cancel-restart question 2"));
    const started = await deployment.post("/api/evaluations/regenerate", { from_ts: from, to_ts: to });
    expect(started.body.total).toBe(3);
    await hold.reached;
    const cancelled = await fetch(`${deployment.url}/api/evaluations/regenerate/${started.body.job_id}`, { method: "DELETE" });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ job_id: started.body.job_id, status: "cancelled" });
    await deployment.kill();
    hold.release();
    hold = undefined;

    await deployment.start();
    await publishSession("regen-cancel-after", "after-restart question");
    await Bun.sleep(1100);
    const later = await deployment.post("/api/evaluations/regenerate", { from_ts: to, to_ts: Math.floor(Date.now() / 1000) });
    expect(later.body.total).toBe(1);
    await until(async () => ((await statusOf(later.body.job_id)).status === "completed" ? true : undefined), 120_000);

    expect(await statusOf(started.body.job_id)).toMatchObject({ status: "cancelled", total: 3, completed: 1, failed: 0 });
    expect(judgedAbout("cancel-restart question 3")).toBe(0);
    const results = (await deployment.post("/api/get_agent_success_evaluation_results", { user_id: "ana" })).body.agent_success_evaluation_results;
    const regenerated = results.filter((r: { origin: string }) => r.origin === "regenerate").map((r: { session_id: string }) => r.session_id);
    expect(regenerated.sort()).toEqual(["regen-cancel-1", "regen-cancel-after"]);
  } finally {
    await deployment.close();
  }
}, 240_000);
