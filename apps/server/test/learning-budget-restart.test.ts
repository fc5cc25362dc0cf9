import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { testMode } from "../../../test/support/database.ts";
import { startFakeLlmServer } from "../../../test/support/llm-server.ts";
import { createFreshDatabase } from "../../../test/support/postgres-database.ts";
import { scriptedReply } from "../../../test/support/scripted-llm.ts";
import { randomPort, spawnServer, spawnWorker, stopProcess, until } from "../../../test/support/server-process.ts";

// A held window and a configuration error across a kill of every process: the held window is still
// held after the restart (its request failed, the one after it waiting) until it is recovered, and
// the configuration error heals by itself once the budget is fixed (the reconciler's timer
// embedded, the learning workflow's durable timer in full mode).

const llm = await startFakeLlmServer(scriptedReply);
const dataDir = mkdtempSync(join(tmpdir(), "als-budget-restart-"));
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const LLM_ENV = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };
/** Above the extraction prompt without a transcript (about 800 estimated tokens), below it with one long turn cut to 2,000 characters. */
const TIGHT_BUDGET = 1_000;

async function deploymentOf(): Promise<{ url: string; start(): Promise<void>; kill(): Promise<void>; close(): Promise<void> }> {
  const port = randomPort();
  let processes: Subprocess[] = [];
  if (testMode === "embedded") {
    return {
      url: `http://127.0.0.1:${port}`,
      async start() {
        processes = [spawnServer(port, { DATA_DIR: dataDir, ...LLM_ENV })];
      },
      kill: async () => void (await Promise.all(processes.map((p) => stopProcess(p, "SIGKILL")))),
      close: async () => void (await Promise.all(processes.map((p) => stopProcess(p, "SIGTERM")))),
    };
  }
  const database = await createFreshDatabase(process.env.TEST_DATABASE_URL!);
  const env = {
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: `budget-restart-${crypto.randomUUID()}`,
    ...LLM_ENV,
  };
  return {
    url: `http://127.0.0.1:${port}`,
    async start() {
      processes = [spawnServer(port, env), spawnWorker(env)];
    },
    kill: async () => void (await Promise.all(processes.map((p) => stopProcess(p, "SIGKILL")))),
    async close() {
      await Promise.all(processes.map((p) => stopProcess(p, "SIGTERM")));
      await database.drop();
    },
  };
}

test(`a held window and a configuration error survive a kill of every process (${testMode})`, async () => {
  const deployment = await deploymentOf();
  // Learning workflows are named after the user in the shared Temporal namespace: ids of this run only.
  const run = crypto.randomUUID().slice(0, 8);
  const heldUser = `held-user-${run}`;
  const configUser = `config-user-${run}`;
  const post = async (path: string, body: object) => {
    const response = await fetch(`${deployment.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
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
    await until(async () => ((await fetch(`${deployment.url}/health`).catch(() => undefined))?.ok ? true : undefined), 60_000);
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
    await until(async () => ((await fetch(`${deployment.url}/health`).catch(() => undefined))?.ok ? true : undefined), 60_000);
    expect((await post("/api/update_config", { learning_input_budget_tokens: 24_000 })).status).toBe(200);
    // Fixed configuration: the backoff's next attempt learns, with no one's help.
    await untilStatus(misconfigured, "done");
    // The held window is still held; the request behind it still waits.
    expect(await statusOf(held)).toMatchObject({ status: "failed", reason: "input_budget_exceeded" });
    expect((await statusOf(behind)).status).toBe("pending");
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
