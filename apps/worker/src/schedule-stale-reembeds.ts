import type { CoreDeps } from "@als/core";
import { staleEmbeddings } from "@als/db";
import { type Client, WorkflowExecutionAlreadyStartedError } from "@temporalio/client";
import { startReembedProfiles } from "./start-reembed-profiles.ts";

/**
 * Starts a re-embedding job for every project holding vectors (of profiles or playbooks) of another
 * model than this worker's.
 * Every worker does this at start-up; a job already running (started by another worker, or before a
 * restart) is left to finish. Returns the workflow ids this call started.
 */
export async function scheduleStaleReembeds(client: Client, deps: CoreDeps, taskQueue: string): Promise<string[]> {
  const started: string[] = [];
  for (const scope of await staleEmbeddings.findScopesWithStaleEmbeddings(deps.db, deps.embedder.modelId)) {
    try {
      started.push((await startReembedProfiles(client, taskQueue, scope, deps.embedder.modelId)).workflowId);
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
  return started;
}
