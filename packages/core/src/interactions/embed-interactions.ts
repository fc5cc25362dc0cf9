import { interactions, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { embeddingTextOfInteraction } from "./interaction-text.ts";

const BATCH = 64;

/**
 * Gives a user's interactions their vectors, in batches, after publishing stored them without:
 * the model's time stays off the publish path, and batches embed more cheaply than single turns.
 * Until then the full-text arm finds them. Idempotent: what has a vector of the current model is
 * left alone.
 */
export async function embedPendingInteractions(deps: CoreDeps, scope: Scope, userId: string): Promise<number> {
  let embedded = 0;
  for (;;) {
    const batch = await interactions.interactionsWithoutEmbedding(deps.db, scope, userId, deps.embedder.modelId, BATCH);
    if (batch.length === 0) return embedded;
    const vectors = await deps.embedder.embedDocuments(batch.map(embeddingTextOfInteraction));
    await interactions.storeInteractionEmbeddings(
      deps.db,
      scope,
      deps.embedder.modelId,
      batch.map((row, index) => ({ interaction_id: row.interaction_id, embedding: vectors[index]! })),
    );
    embedded += batch.length;
    if (batch.length < BATCH) return embedded;
  }
}
