import { afterAll, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { STAGING_PROFILE, scriptedReply } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";
import { Client, Connection } from "@temporalio/client";

// A window asks a person, every process is killed while it waits, the question is answered
// through the API of the new processes, and the run resumes there: its learnings are committed
// once, using the answer (the reconciler embedded; the learning workflow, woken by the answer's
// signal from its durable wait, in full mode).
const llm = await startFakeLlmServer(scriptedReply);
afterAll(() => llm.close());

const LLM_ENV = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };

test(`a run waiting on a question survives a kill of every process and resumes on the answer (${testMode})`, async () => {
  const deployment = await startableDeployment("questions-restart", LLM_ENV);
  // Learning workflows are named after the user in the shared Temporal namespace: an id of this run only.
  const userId = `asker-${crypto.randomUUID().slice(0, 8)}`;
  const get = async (path: string) => (await fetch(`${deployment.url}${path}`)).json() as Promise<any>;
  try {
    await deployment.start();
    expect((await deployment.post("/api/update_config", { pending_tool_call_config: { enabled: true } })).status).toBe(200);
    const published = await deployment.post("/api/publish_interaction", {
      user_id: userId,
      session_id: `${userId}-s`,
      force_extraction: true,
      interaction_data_list: [{ content: "Always use the staging account when you deploy for me." }],
    });
    expect(published.status).toBe(200);
    const requestId = published.body.request_id;
    const question = await until(async () => {
      const list = await get("/api/pending_tool_calls?status=pending");
      return list.pending_tool_calls.find((call: { user_id: string }) => call.user_id === userId);
    }, 60_000);
    // The step that asked has ended (its lease released): the run waits.
    await until(async () => ((await get(`/api/learning_status?request_id=${requestId}`)).status === "pending" ? true : undefined), 60_000);
    if (testMode === "full") expect(await workflowWaitingOn(question.id)).toContain(userId);

    await deployment.kill();
    await deployment.start();
    expect((await get(`/api/learning_status?request_id=${requestId}`)).status).toBe("pending");
    const resolved = await deployment.post(`/api/pending_tool_calls/${question.id}/resolve`, { answer: "yes" });
    expect(resolved.status).toBe(200);
    await until(async () => ((await get(`/api/learning_status?request_id=${requestId}`)).status === "done" ? true : undefined), 90_000);
    const profiles = (await deployment.post("/api/get_profiles", { user_id: userId })).body.user_profiles.map((p: any) => p.content);
    expect(profiles).toEqual([STAGING_PROFILE.content]);
  } finally {
    await deployment.close();
  }
}, 300_000);

/** The id of the workflow the Temporal UI finds by the question's search attribute (full mode). */
async function workflowWaitingOn(questionId: string): Promise<string> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection });
    return await until(async () => {
      for await (const workflow of client.workflow.list({ query: `AlsPendingToolCallIds = '${questionId}'` })) return workflow.workflowId;
      return undefined;
    }, 30_000);
  } finally {
    await connection.close();
  }
}
