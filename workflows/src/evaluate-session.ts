import { proxyActivities, setCurrentDetails, sleep } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";

export interface EvaluateSessionInput {
  orgId: string;
  projectId: string;
  sessionId: string;
}

const BUSY_PAUSE = "5 seconds";

const { evaluationStep } = proxyActivities<Activities>({
  // A session's judges are up to three LLM calls; the heartbeat notices a worker that died holding them.
  startToCloseTimeout: "15 minutes",
  heartbeatTimeout: "20 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 20 },
});

/**
 * The durable timer of one sampled session's evaluation; its id is `evaluate:<org>:<project>:<session>`.
 * It sleeps until the session has been quiet for the inactivity delay (the step says until when: a
 * publish meanwhile moves it), then the step grades the session. A session published to after it was
 * graded starts a new run. Without a provider the run ends and the session waits in the database; a
 * worker starting up (with one) starts it again.
 */
export async function evaluateSessionWorkflow(input: EvaluateSessionInput): Promise<void> {
  for (;;) {
    const outcome = await evaluationStep(input);
    if (outcome.next === "done") return;
    if (outcome.next === "busy") {
      setCurrentDetails("Another worker holds the session");
      await sleep(BUSY_PAUSE);
      continue;
    }
    setCurrentDetails(`Grading at ${new Date(outcome.until * 1000).toISOString()}, once the session has been quiet long enough`);
    await sleep(Math.max(0, outcome.until * 1000 - Date.now()));
  }
}
