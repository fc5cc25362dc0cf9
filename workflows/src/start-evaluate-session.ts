import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { evaluateSessionWorkflow } from "./evaluate-session.ts";
import { startUnlessRunning } from "./start-unless-running.ts";
import { evaluateSessionWorkflowId } from "./workflow-ids.ts";

/**
 * Starts the durable timer of a session's evaluation; one already running (started by an earlier
 * publish, or by a worker recovering waiting sessions at start-up) is left to run. Client code, kept
 * out of index.ts (the workflow bundle).
 */
export function startEvaluateSessionWorkflow(client: Client, taskQueue: string, scope: Scope, sessionId: string): Promise<void> {
  const session = { orgId: scope.orgId, projectId: scope.projectId, sessionId };
  return startUnlessRunning<typeof evaluateSessionWorkflow>(client, "evaluateSessionWorkflow", {
    taskQueue,
    workflowId: evaluateSessionWorkflowId(session),
    args: [session],
    staticSummary: `Evaluate a session after its inactivity delay (${scope.orgId}/${scope.projectId})`,
  });
}
