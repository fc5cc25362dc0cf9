import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { dataSourceCollectionWorkflow } from "./data-source-collection.ts";
import { collectionWorkflowId } from "./workflow-ids.ts";

/**
 * Starts the collection workflow of a stream, or signals the running one that there is work now.
 * Client code, kept out of index.ts (the workflow bundle).
 */
export async function signalDataSourceCollection(client: Client, taskQueue: string, scope: Scope, streamId: string): Promise<void> {
  await client.workflow.signalWithStart<typeof dataSourceCollectionWorkflow, []>("dataSourceCollectionWorkflow", {
    taskQueue,
    workflowId: collectionWorkflowId({ ...scope, streamId }),
    args: [{ orgId: scope.orgId, projectId: scope.projectId, streamId }],
    signal: "collectionChanged",
    signalArgs: [],
    staticSummary: `Data-source collection of stream ${streamId} (${scope.orgId}/${scope.projectId})`,
  });
}
