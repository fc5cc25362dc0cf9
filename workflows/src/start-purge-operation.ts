import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { purgeOperationWorkflow } from "./purge-operation.ts";
import { startUnlessRunning } from "./start-unless-running.ts";

/**
 * Starts the workflow of a purge operation, whose id is the purge id; one already started (by the
 * API, or by a worker recovering operations at start-up) is left running. Client code, kept out of
 * index.ts (the workflow bundle).
 */
export function startPurgeOperationWorkflow(client: Client, taskQueue: string, scope: Scope, purgeId: string): Promise<void> {
  return startUnlessRunning<typeof purgeOperationWorkflow>(client, "purgeOperationWorkflow", {
    taskQueue,
    workflowId: purgeId,
    args: [{ orgId: scope.orgId, projectId: scope.projectId, purgeId }],
    // The user id stays out of Temporal's history and UI: the purge id says which erasure it is.
    staticSummary: `Erasure ${purgeId} (${scope.orgId}/${scope.projectId})`,
  });
}
