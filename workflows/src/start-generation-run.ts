import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { generationRunWorkflow } from "./generation-run.ts";
import { startUnlessRunning } from "./start-unless-running.ts";

/**
 * Starts the workflow of a generation run, whose id is the run id; one already started (by the
 * API, or by a worker recovering runs at start-up) is left running. Client code, kept out of
 * index.ts (the workflow bundle).
 */
export function startGenerationRunWorkflow(client: Client, taskQueue: string, scope: Scope, runId: string): Promise<void> {
  return startUnlessRunning<typeof generationRunWorkflow>(client, "generationRunWorkflow", {
    taskQueue,
    workflowId: runId,
    args: [{ orgId: scope.orgId, projectId: scope.projectId, runId }],
    staticSummary: `Generation run ${runId} (${scope.orgId}/${scope.projectId})`,
  });
}
