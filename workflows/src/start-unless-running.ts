import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowStartOptions } from "@temporalio/client";
import type { Workflow } from "@temporalio/workflow";

/**
 * Starts a workflow whose id is a business id; a second start of the same id collides, and the
 * workflow already running is left alone. Client code, kept out of index.ts (the workflow bundle).
 */
export async function startUnlessRunning<W extends Workflow>(client: Client, workflowType: string, options: WorkflowStartOptions<W>): Promise<void> {
  try {
    await client.workflow.start<W>(workflowType, options);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
