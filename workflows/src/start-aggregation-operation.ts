import type { Scope } from "@als/db";
import { WorkflowExecutionAlreadyStartedError, type Client } from "@temporalio/client";
import type { aggregationOperationWorkflow } from "./aggregation-operation.ts";

/**
 * Starts the workflow of an aggregation operation, whose id is the operation id; one already
 * started (by the API, or by a worker recovering operations at start-up) is left running. Client
 * code, kept out of index.ts (the workflow bundle).
 */
export async function startAggregationOperationWorkflow(client: Client, taskQueue: string, scope: Scope, operationId: string): Promise<void> {
  try {
    await client.workflow.start<typeof aggregationOperationWorkflow>("aggregationOperationWorkflow", {
      taskQueue,
      workflowId: operationId,
      args: [{ orgId: scope.orgId, projectId: scope.projectId, operationId }],
      staticSummary: `Aggregate user playbooks into agent playbooks (${scope.orgId}/${scope.projectId})`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
