import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";
import { stepUntilDone } from "./step-until-done.ts";

export interface GenerationRunInput {
  orgId: string;
  projectId: string;
  runId: string;
}

const { generationStep } = proxyActivities<Activities>({
  // One attempt works through the whole run (a rerun of every user can take hours), one LLM call per
  // window or playbook, committing as it goes; the heartbeat notices a dead worker within seconds,
  // and a retry (on any worker) goes on after what was committed.
  startToCloseTimeout: "24 hours",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 5 },
});

/**
 * One durable generation run (a rerun or a manual generation of profiles or user playbooks, or an
 * applied review); its workflow id is the run id. Each attempt is the idempotent generation step.
 */
export async function generationRunWorkflow(input: GenerationRunInput): Promise<void> {
  await stepUntilDone(() => generationStep(input));
}
