import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { regenerateEvaluationsWorkflow } from "./regenerate-evaluations.ts";
import { startUnlessRunning } from "./start-unless-running.ts";

/**
 * Starts the workflow of a regenerate job, whose id is the job id; one already started (by the API,
 * or by a worker recovering jobs at start-up) is left running. Client code, kept out of index.ts.
 */
export function startRegenerateEvaluationsWorkflow(client: Client, taskQueue: string, scope: Scope, jobId: string): Promise<void> {
  return startUnlessRunning<typeof regenerateEvaluationsWorkflow>(client, "regenerateEvaluationsWorkflow", {
    taskQueue,
    workflowId: jobId,
    args: [{ orgId: scope.orgId, projectId: scope.projectId, jobId }],
    staticSummary: `Regenerate evaluations ${jobId} (${scope.orgId}/${scope.projectId})`,
  });
}
