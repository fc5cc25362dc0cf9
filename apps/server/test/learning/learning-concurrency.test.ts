import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

/** Users' windows the provider is configured to take at once (LLM_CONCURRENCY), above the four the reconciler once had. */
const CONCURRENCY = 6;
const USERS = 9;

describe(`learning throughput (${testMode})`, () => {
  let svc: TestService;
  let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
  let inFlight = 0;
  let mostInFlight = 0;
  /** Calls wait here until CONCURRENCY of them are in flight (or a moment passed), so overlap shows. */
  let arrivals: (() => void)[] = [];

  beforeAll(async () => {
    llm = await startScriptedLlm(async (request: FakeLlmRequest) => {
      if (request.schemaName !== "profile_extraction") return scriptedReply(request);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise<void>((resolve) => {
        arrivals.push(resolve);
        if (arrivals.length >= CONCURRENCY) {
          for (const arrived of arrivals) arrived();
          arrivals = [];
        }
        setTimeout(resolve, 1_500);
      });
      inFlight--;
      return scriptedReply(request);
    });
    svc = await startTestService({ llm: llm.llm });
    svc.deps.learning = { concurrency: CONCURRENCY };
  });
  afterAll(async () => {
    await svc.close();
    llm.server.close();
  });

  test("the reconciler learns from as many users' windows at once as the provider's concurrency allows", async () => {
    const published = await Promise.all(
      Array.from({ length: USERS }, (_, index) =>
        svc.call("POST", "/api/publish_interaction", {
          user_id: `reader-${index}`,
          session_id: `reader-${index}-session`,
          force_extraction: true,
          interaction_data_list: [{ role: "User", content: `I read a book a week, number ${index}` }],
        }),
      ),
    );
    expect(published.map((answer) => answer.status)).toEqual(Array(USERS).fill(200));
    await svc.learningIdle();
    expect(llm.server.requests.filter((request) => request.schemaName === "profile_extraction")).toHaveLength(USERS);
    expect(mostInFlight).toBe(CONCURRENCY);
  });
});
