import type { CoreDeps } from "@als/core";
import { generationRuns } from "@als/db";
import { startGenerationRunWorkflow } from "@als/workflows/start-generation-run";
import type { Client } from "@temporalio/client";

/**
 * Starts the workflow of every generation run that should be running and may have none: the API
 * committed the run but could not reach Temporal. A workflow already running is left alone.
 */
export async function scheduleUnfinishedGenerationRuns(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const runs = await generationRuns.findRunnableRuns(deps.db, deps.now());
  for (const { runId, ...scope } of runs) await startGenerationRunWorkflow(client, taskQueue, scope, runId);
  return runs.length;
}
