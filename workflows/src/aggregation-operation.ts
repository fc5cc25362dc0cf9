import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";
import { stepUntilDone } from "./step-until-done.ts";

export interface AggregationOperationInput {
  orgId: string;
  projectId: string;
  operationId: string;
}

const { aggregationStep } = proxyActivities<Activities>({
  // One attempt clusters and makes one LLM call per changed cluster; the heartbeat notices a dead worker.
  startToCloseTimeout: "30 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 5 },
});

/** One durable aggregation operation; its workflow id is the operation id. Each attempt is the idempotent aggregation step. */
export async function aggregationOperationWorkflow(input: AggregationOperationInput): Promise<void> {
  await stepUntilDone(() => aggregationStep(input));
}
