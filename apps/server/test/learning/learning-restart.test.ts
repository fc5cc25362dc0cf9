import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testMode } from "@als/test-support/database.ts";
import { type FakeLlmReply, type FakeLlmRequest, startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { randomPort, spawnServer, until, untilHealthy } from "@als/test-support/server-process.ts";

const dataDir = mkdtempSync(join(tmpdir(), "als-restart-"));

/** While set, profile extraction hangs until it resolves: a window caught in the middle. */
let gate: Promise<void> | undefined;
const llm = await startFakeLlmServer(async (request: FakeLlmRequest): Promise<FakeLlmReply> => {
  if (gate && request.schemaName === "profile_extraction") await gate;
  return scriptedReply(request);
});
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const startServer = (port: number) =>
  spawnServer(port, {
    DATA_DIR: dataDir,
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
  });

// The embedded mode's process is both API and worker: killing it mid-window is killing the worker.
describe.skipIf(testMode !== "embedded")("the embedded reconciler across a crash", () => {
  test("a window interrupted by killing the process is completed exactly once after restart", async () => {
    const port = randomPort();
    const url = `http://127.0.0.1:${port}`;
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const first = startServer(port);
    await untilHealthy(url);
    const published = (await (
      await fetch(`${url}/api/publish_interaction`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_id: "ana", session_id: "s", force_extraction: true, interaction_data_list: [{ content: "I am vegan" }] }),
      })
    ).json()) as { request_id: string };
    const extractions = () => llm.requests.filter((r) => r.schemaName === "profile_extraction").length;
    await until(async () => (extractions() > 0 ? true : undefined), 30_000);
    first.kill("SIGKILL");
    await first.exited;
    gate = undefined;
    release();

    const second = startServer(port);
    try {
      await until(async () => {
        const status = (await (await fetch(`${url}/api/learning_status?request_id=${published.request_id}`)).json()) as { status: string };
        return status.status === "done" ? true : undefined;
      }, 60_000);
      const profiles = (await (
        await fetch(`${url}/api/get_profiles`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user_id: "ana" }) })
      ).json()) as { user_profiles: { content: string }[] };
      expect(profiles.user_profiles.map((p) => p.content)).toEqual(["Is vegan"]);
      expect(extractions()).toBe(2);
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
  }, 120_000);
});
