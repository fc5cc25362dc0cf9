import type { CoreDeps } from "@als/core";
import { physicalRemoval, purgeOperations } from "@als/db";
import { startPurgeOperationWorkflow } from "@als/workflows/start-purge-operation";
import type { Client } from "@temporalio/client";

/**
 * Starts the workflow of every erasure that should be running and may have none: the API committed
 * the operation (the barrier holds) but could not reach Temporal, or its rows went before the
 * physical removal pass existed. A workflow already running is left alone.
 */
export async function scheduleUnfinishedPurges(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const purges = [...(await purgeOperations.findRunnablePurges(deps.db, deps.now())), ...(await physicalRemoval.findAwaitingPhysicalRemoval(deps.db))];
  for (const { purgeId, ...scope } of purges) await startPurgeOperationWorkflow(client, taskQueue, scope, purgeId);
  return purges.length;
}
