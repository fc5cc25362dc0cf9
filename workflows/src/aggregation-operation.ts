import { proxyActivities, setCurrentDetails, sleep } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";

export interface AggregationOperationInput {
  orgId: string;
  projectId: string;
  operationId: string;
}

const BUSY_PAUSE = "5 seconds";

const { aggregationStep } = proxyActivities<Activities>({
  // One attempt clusters and makes one LLM call per changed cluster; the heartbeat notices a dead worker.
  startToCloseTimeout: "30 minutes",
  heartbeatTimeout: "30 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 5 },
});

/**
 * One durable aggregation operation; its workflow id is the operation id. Each attempt is the
 * idempotent aggregation step; the step itself records retries and failures on the receipt (a
 * bounded number of attempts), and the workflow sleeps on a durable timer until a retry is due.
 */
export async function aggregationOperationWorkflow(input: AggregationOperationInput): Promise<void> {
  for (;;) {
    const outcome = await aggregationStep(input);
    if (outcome.next === "done") return;
    setCurrentDetails(outcome.next === "retry" ? `Retrying at ${new Date(outcome.at * 1000).toISOString()}` : "Another worker holds the operation");
    await sleep(outcome.next === "retry" ? Math.max(0, outcome.at * 1000 - Date.now()) : BUSY_PAUSE);
  }
}
