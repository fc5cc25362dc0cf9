import type { CoreDeps } from "@als/core";
import { aggregation } from "@als/db";
import { startAggregationOperationWorkflow } from "@als/workflows/start-aggregation-operation";
import type { Client } from "@temporalio/client";

/**
 * Starts the workflow of every aggregation operation that should be running and may have none: the
 * API committed the receipt but could not reach Temporal. A workflow already running is left alone.
 */
export async function scheduleUnfinishedAggregations(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const operations = await aggregation.findRunnableOperations(deps.db, deps.now());
  for (const { operationId, ...scope } of operations) await startAggregationOperationWorkflow(client, taskQueue, scope, operationId);
  return operations.length;
}
