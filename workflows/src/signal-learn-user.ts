import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import type { learnUserWorkflow } from "./learn-user.ts";
import { learnUserWorkflowId } from "./workflow-ids.ts";

/**
 * Signal-with-start of a user's learning run: starts it when none is running, otherwise wakes the
 * running one. Called by the API on every publish, and by workers at start-up for users with
 * interactions not yet learned from. Client code, kept out of index.ts (the workflow bundle).
 */
export async function signalLearnUser(client: Client, taskQueue: string, scope: Scope, userId: string): Promise<void> {
  const user = { orgId: scope.orgId, projectId: scope.projectId, userId };
  await client.workflow.signalWithStart<typeof learnUserWorkflow, []>("learnUserWorkflow", {
    taskQueue,
    workflowId: learnUserWorkflowId(user),
    args: [user],
    signal: "userPublished",
    signalArgs: [],
    staticSummary: `Learn from the interactions of ${userId} (${scope.orgId}/${scope.projectId})`,
  });
}
