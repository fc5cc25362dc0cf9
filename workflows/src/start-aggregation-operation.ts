import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { aggregationOperationWorkflow } from "./aggregation-operation.ts";
import { startUnlessRunning } from "./start-unless-running.ts";

/**
 * Starts the workflow of an aggregation operation, whose id is the operation id; one already
 * started (by the API, or by a worker recovering operations at start-up) is left running. Client
 * code, kept out of index.ts (the workflow bundle).
 */
export function startAggregationOperationWorkflow(client: Client, taskQueue: string, scope: Scope, operationId: string): Promise<void> {
  return startUnlessRunning<typeof aggregationOperationWorkflow>(client, "aggregationOperationWorkflow", {
    taskQueue,
    workflowId: operationId,
    args: [{ orgId: scope.orgId, projectId: scope.projectId, operationId }],
    staticSummary: `Aggregate user playbooks into agent playbooks (${scope.orgId}/${scope.projectId})`,
  });
}
