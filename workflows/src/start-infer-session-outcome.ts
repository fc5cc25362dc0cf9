import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { inferSessionOutcomeWorkflow } from "./infer-session-outcome.ts";
import { inferSessionOutcomeWorkflowId } from "./workflow-ids.ts";

/**
 * Signal-with-start of a session's outcome inference timer: starts it when none is running,
 * otherwise wakes the running one (a reply made the session due sooner than it sleeps). Client
 * code, kept out of index.ts (the workflow bundle).
 */
export async function startInferSessionOutcomeWorkflow(client: Client, taskQueue: string, scope: Scope, sessionId: string): Promise<void> {
  const session = { orgId: scope.orgId, projectId: scope.projectId, sessionId };
  await client.workflow.signalWithStart<typeof inferSessionOutcomeWorkflow, []>("inferSessionOutcomeWorkflow", {
    taskQueue,
    workflowId: inferSessionOutcomeWorkflowId(session),
    args: [session],
    signal: "sessionMoved",
    signalArgs: [],
    staticSummary: `Infer a session's outcome once it is quiet or replied to (${scope.orgId}/${scope.projectId})`,
  });
}
