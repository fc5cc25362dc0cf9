import { proxyActivities } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";
import { stepUntilDone } from "./step-until-done.ts";

export interface PurgeOperationInput {
  orgId: string;
  projectId: string;
  purgeId: string;
}

const { purgeStep, physicalRemovalStep } = proxyActivities<Activities>({
  // One attempt works through the erasure's deletes, check and audit, committing each; no step waits
  // on a provider, so a worker that stops heartbeating (every 5 s) is taken for dead after 15 s, and
  // a retry goes on from what was committed.
  startToCloseTimeout: "1 hour",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 10 },
});

/**
 * One durable erasure of a user (a purge operation); its workflow id is the purge id. Each attempt
 * is the idempotent purge step; once the rows are gone, the workflow waits for a physical removal
 * pass to cover the erasure (running it, unless another erasure's workflow already is).
 */
export async function purgeOperationWorkflow(input: PurgeOperationInput): Promise<void> {
  await stepUntilDone(() => purgeStep(input));
  await stepUntilDone(() => physicalRemovalStep({ purgeId: input.purgeId }));
}
