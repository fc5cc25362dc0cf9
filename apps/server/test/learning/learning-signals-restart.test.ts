import { afterAll, describe, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startableDeployment } from "@als/test-support/deployment.ts";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";

// Full mode: a publish answers without waiting for its learning workflow's signal (sent after it,
// coalesced per user). What must hold: no publish is left unlearned, under concurrent publishes and
// across a kill of the API process between the commit and the signal.

const llm = await startFakeLlmServer(scriptedReply);
afterAll(() => llm.close());

const LLM_ENV = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };

describe.skipIf(testMode !== "full")("learning signals sent after the publish", () => {
  test("concurrent publishes of a few users are each learned, with their signals coalesced", async () => {
    const deployment = await startableDeployment("learning-signals", LLM_ENV);
    // Learning workflows are named after the user in the shared Temporal namespace: ids of this run only.
    const run = crypto.randomUUID().slice(0, 8);
    try {
      await deployment.start();
      const publishes = Array.from({ length: 24 }, (_, i) => ({ user: `signal-user-${i % 3}-${run}`, content: `I am vegan (${i}).` }));
      const answered = await Promise.all(
        publishes.map(({ user, content }) =>
          deployment.post("/api/publish_interaction", { user_id: user, session_id: `${user}-s`, force_extraction: true, interaction_data_list: [{ content }] }),
        ),
      );
      expect(answered.map((reply) => reply.status)).toEqual(publishes.map(() => 200));
      for (const { body } of answered) {
        await until(async () => {
          const status = (await (await fetch(`${deployment.url}/api/learning_status?request_id=${body.request_id}`)).json()) as { status: string };
          return status.status === "done" ? true : undefined;
        }, 90_000);
      }
    } finally {
      await deployment.close();
    }
  }, 240_000);

  test("a publish committed by an API process killed before its signal is learned after that process restarts", async () => {
    const deployment = await startableDeployment("learning-signal-crash", LLM_ENV);
    const user = `crash-user-${crypto.randomUUID().slice(0, 8)}`;
    try {
      await deployment.start();
      await deployment.restartServer({ CRASH_POINTS: "learning_signal.before_send" });
      // The server kills itself after the commit, before the signal (and so before the answer).
      const publishing = deployment.post("/api/publish_interaction", {
        user_id: user,
        session_id: `${user}-s`,
        force_extraction: true,
        interaction_data_list: [{ content: "I am vegan." }],
      });
      await expect(publishing).rejects.toThrow();
      await deployment.serverExited();

      // The worker ran on; only the API's start-up sweep signals this user now.
      await deployment.restartServer();
      const stored = await deployment.post("/api/get_interactions", { user_id: user });
      expect(stored.body.interactions.map((interaction: { content: string }) => interaction.content)).toEqual(["I am vegan."]);
      const profiles = await until(async () => {
        const found = (await deployment.post("/api/get_profiles", { user_id: user })).body.user_profiles;
        return found.length > 0 ? found.map((profile: { content: string }) => profile.content) : undefined;
      }, 90_000);
      expect(profiles).toEqual(["Is vegan"]);
    } finally {
      await deployment.close();
    }
  }, 240_000);
});
