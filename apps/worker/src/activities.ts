import { reembedProfilesStep, type CoreDeps } from "@als/core";
import type { Activities } from "@als/workflows/activities";
import { ApplicationFailure } from "@temporalio/activity";

/** The activities of this worker process: thin calls of domain steps over deps composed once. */
export function createActivities(deps: CoreDeps): Activities {
  return {
    async reembedProfilesStep({ orgId, projectId, modelId, batchSize }) {
      // During a rolling model change, workers of both models poll the same queue; a retry lands the
      // step on a worker of the right model instead of writing vectors of the wrong one.
      if (deps.embedder.modelId !== modelId) {
        throw ApplicationFailure.retryable(`this worker embeds with ${deps.embedder.modelId}, not ${modelId}`, "EmbeddingModelMismatch");
      }
      return reembedProfilesStep(deps, { orgId, projectId }, batchSize);
    },
  };
}
