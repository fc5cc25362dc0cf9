import type { Scope } from "@als/db";
import { reembedProfilesWorkflow } from "@als/workflows";
import { reembedProfilesWorkflowId } from "@als/workflows/workflow-ids";
import type { Client } from "@temporalio/client";

/**
 * Starts re-embedding a project for a model. The id names the job, and a second start while one runs
 * fails with WorkflowExecutionAlreadyStartedError (conflict policy FAIL). A closed run does not block
 * a new one (reuse policy ALLOW_DUPLICATE): callers start only when rows are stale, so a new run
 * always has work, e.g. rows an API process still on the old model wrote after the last run ended.
 */
export function startReembedProfiles(client: Client, taskQueue: string, scope: Scope, modelId: string) {
  const job = { orgId: scope.orgId, projectId: scope.projectId, modelId };
  return client.workflow.start(reembedProfilesWorkflow, {
    taskQueue,
    workflowId: reembedProfilesWorkflowId(job),
    workflowIdConflictPolicy: "FAIL",
    workflowIdReusePolicy: "ALLOW_DUPLICATE",
    args: [job],
    staticSummary: `Re-embed the profiles and playbooks of ${scope.orgId}/${scope.projectId} with ${modelId}`,
  });
}
