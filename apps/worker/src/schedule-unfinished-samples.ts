import type { CoreDeps } from "@als/core";
import { dataSourceSamples } from "@als/db";
import { startDataSourceSampleWorkflow } from "@als/workflows/start-data-source-sample";
import type { Client } from "@temporalio/client";

/**
 * Starts the workflow of every data-source sample still to be read that may have none: the API
 * committed the sample but could not reach Temporal. A workflow already running is left alone.
 */
export async function scheduleUnfinishedSamples(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const samples = await dataSourceSamples.findRunnableSamples(deps.db, deps.now());
  for (const { sampleId, ...scope } of samples) await startDataSourceSampleWorkflow(client, taskQueue, scope, sampleId);
  return samples.length;
}
