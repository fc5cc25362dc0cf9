import { afterAll, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";

// A held window and a configuration error across a kill of every process: the held window is still
// held after the restart (its request failed, the one after it waiting) until it is recovered, and
// the configuration error heals by itself once the budget is fixed (the reconciler's timer
// embedded, the learning workflow's durable timer in full mode).

const llm = await startFakeLlmServer(scriptedReply);
afterAll(() => llm.close());

const LLM_ENV = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };
/** Above the extraction prompt without a transcript (about 800 estimated tokens), below it with one long turn cut to 2,000 characters. */
const TIGHT_BUDGET = 1_000;

test(`a held window and a configuration error survive a kill of every process (${testMode})`, async () => {
  const deployment = await startableDeployment("budget-restart", LLM_ENV);
  // Learning workflows are named after the user in the shared Temporal namespace: ids of this run only.
  const run = crypto.randomUUID().slice(0, 8);
  const heldUser = `held-user-${run}`;
  const configUser = `config-user-${run}`;
  const post = deployment.post;
  const statusOf = async (requestId: string) => (await fetch(`${deployment.url}/api/learning_status?request_id=${requestId}`).then((r) => r.json())) as any;
  const publish = async (userId: string, content: string) =>
    (await post("/api/publish_interaction", { user_id: userId, session_id: `${userId}-s`, force_extraction: true, interaction_data_list: [{ content }] })).body
      .request_id as string;
  const untilStatus = async (requestId: string, status: string, reason?: string) => {
    let last: unknown;
    try {
      return await until(async () => {
        const current = await statusOf(requestId);
        last = current;
        return current.status === status && (reason === undefined || current.reason === reason) ? current : undefined;
      }, 90_000);
    } catch (error) {
      throw new Error(`request ${requestId} never reached ${status} ${reason ?? ""}: last ${JSON.stringify(last)}`, { cause: error });
    }
  };
  try {
    await deployment.start();
    expect((await post("/api/update_config", { learning_input_budget_tokens: TIGHT_BUDGET })).status).toBe(200);
    const held = await publish(heldUser, `${heldUser}: ${"word ".repeat(5_000)}`);
    await untilStatus(held, "failed", "input_budget_exceeded");
    const behind = await publish(heldUser, `${heldUser}: I am vegan.`);
    await untilStatus(behind, "pending");
    expect((await post("/api/update_config", { learning_input_budget_tokens: 10 })).status).toBe(200);
    const misconfigured = await publish(configUser, `${configUser}: I am vegan.`);
    await untilStatus(misconfigured, "failed", "input_budget_configuration_error");

    await deployment.kill();
    await deployment.start();
    expect((await post("/api/update_config", { learning_input_budget_tokens: 24_000 })).status).toBe(200);
    // Fixed configuration: the backoff's next attempt learns, with no one's help.
    await untilStatus(misconfigured, "done");
    // The held window is still held; the request behind it still waits. Either reads as processing
    // while a step holds the user's lease: the restart's sweeps wake every user with pending learning,
    // and a step killed midway (the request behind's, started by its signal up to a second late) holds
    // it until its retry, after the activity's 15 s heartbeat timeout (full mode).
    await untilStatus(held, "failed", "input_budget_exceeded");
    await untilStatus(behind, "pending");
    for (const extractor of ["profile", "playbook"]) {
      expect((await post("/api/learning/recover_held_window", { user_id: heldUser, extractor, action: "skip" })).status).toBe(200);
    }
    await untilStatus(behind, "done");
    const profiles = (await post("/api/get_profiles", { user_id: heldUser })).body.user_profiles.map((p: any) => p.content);
    expect(profiles).toEqual(["Is vegan"]);
  } finally {
    await deployment.close();
  }
}, 300_000);
