import { profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

export interface ReembedProgress {
  /** Profiles given a vector of the current model by this step. */
  reembedded: number;
  /** Profiles still carrying another model's vector (or none) after this step. */
  remaining: number;
}

/**
 * One idempotent step of re-embedding a project's profiles with the current model: takes the next
 * batch whose vector came from another model, embeds it and stores the vectors. The rows themselves
 * are the cursor, so the step can be repeated, interrupted and resumed by any worker.
 */
export async function reembedProfilesStep(deps: CoreDeps, scope: Scope, batchSize: number): Promise<ReembedProgress> {
  const modelId = deps.embedder.modelId;
  const batch = await profiles.findProfilesWithStaleEmbedding(deps.db, scope, modelId, batchSize);
  let reembedded = 0;
  if (batch.length > 0) {
    const vectors = await deps.embedder.embedDocuments(batch.map((p) => p.content));
    reembedded = await profiles.storeProfileEmbeddings(
      deps.db,
      scope,
      modelId,
      batch.map((p, index) => ({ ...p, embedding: vectors[index]! })),
    );
  }
  return { reembedded, remaining: await profiles.countProfilesWithStaleEmbedding(deps.db, scope, modelId) };
}
