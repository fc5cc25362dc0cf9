import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";
import { stepUntilDone } from "./step-until-done.ts";

export interface RegenerateEvaluationsInput {
  orgId: string;
  projectId: string;
  jobId: string;
}

const { evaluationJobStep } = proxyActivities<Activities>({
  // One attempt grades the whole window, committing session by session; the heartbeat notices a
  // dead worker, and a retry goes on after the last session saved.
  startToCloseTimeout: "24 hours",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 10 },
});

/** One durable regenerate job; its workflow id is the job id. Each attempt is the idempotent job step. */
export async function regenerateEvaluationsWorkflow(input: RegenerateEvaluationsInput): Promise<void> {
  await stepUntilDone(() => evaluationJobStep(input));
}
