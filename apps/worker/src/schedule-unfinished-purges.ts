import type { CoreDeps } from "@als/core";
import { purgeOperations } from "@als/db";
import { startPurgeOperationWorkflow } from "@als/workflows/start-purge-operation";
import type { Client } from "@temporalio/client";

/**
 * Starts the workflow of every erasure that should be running and may have none: the API committed
 * the operation (the barrier holds) but could not reach Temporal. A workflow already running is left alone.
 */
export async function scheduleUnfinishedPurges(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const purges = await purgeOperations.findRunnablePurges(deps.db, deps.now());
  for (const { purgeId, ...scope } of purges) await startPurgeOperationWorkflow(client, taskQueue, scope, purgeId);
  return purges.length;
}
