import type { CoreDeps } from "@als/core";
import { dataSourceCollections } from "@als/db";
import { signalDataSourceCollection } from "@als/workflows/start-data-source-collection";
import type { Client } from "@temporalio/client";

/**
 * Makes sure every active data-source collection has its workflow: the API committed an activation
 * or a resume but could not reach Temporal. A running workflow is only signalled.
 */
export async function scheduleActiveCollections(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const collections = await dataSourceCollections.findActiveCollections(deps.db);
  for (const { streamId, ...scope } of collections) await signalDataSourceCollection(client, taskQueue, scope, streamId);
  return collections.length;
}
