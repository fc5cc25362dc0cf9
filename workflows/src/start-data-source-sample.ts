import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { dataSourceSampleWorkflow } from "./data-source-sample.ts";
import { startUnlessRunning } from "./start-unless-running.ts";

/**
 * Starts the workflow of a data-source sample, whose id is the sample id; one already started is
 * left running. Client code, kept out of index.ts (the workflow bundle).
 */
export function startDataSourceSampleWorkflow(client: Client, taskQueue: string, scope: Scope, sampleId: string): Promise<void> {
  return startUnlessRunning<typeof dataSourceSampleWorkflow>(client, "dataSourceSampleWorkflow", {
    taskQueue,
    workflowId: sampleId,
    args: [{ orgId: scope.orgId, projectId: scope.projectId, sampleId }],
    staticSummary: `Data-source sample ${sampleId} (${scope.orgId}/${scope.projectId})`,
  });
}
