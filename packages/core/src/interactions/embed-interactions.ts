import { interactions, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { embeddingTextOfInteraction } from "./interaction-text.ts";

/** Interactions embedded per call of the model. */
export const INTERACTION_EMBEDDING_BATCH = 64;

/**
 * Gives a user's interactions their vectors, in batches, after publishing stored them without:
 * the model's time stays off the publish path, and batches embed more cheaply than single turns.
 * Until then the full-text arm finds them. Idempotent: what has a vector of the current model is
 * left alone. A batch is stored, and the next one read, while the model embeds the one between, so
 * the statements add little to the model's time.
 */
export async function embedPendingInteractions(deps: CoreDeps, scope: Scope, userId: string): Promise<number> {
  const { db, embedder } = deps;
  const read = (afterSeq: number) => interactions.interactionsWithoutEmbedding(db, scope, userId, embedder.modelId, INTERACTION_EMBEDDING_BATCH, afterSeq);
  let embedded = 0;
  let stored: Promise<void> = Promise.resolve();
  for (let batch = await read(0); batch.length > 0; ) {
    const vectors = embedder.embedDocuments(batch.map(embeddingTextOfInteraction));
    const next = batch.length < INTERACTION_EMBEDDING_BATCH ? Promise.resolve([]) : read(batch[batch.length - 1]!.seq);
    // Each is awaited below; one that fails while another is awaited must not count as unhandled.
    vectors.catch(() => {});
    next.catch(() => {});
    await stored;
    const values = await vectors;
    stored = interactions.storeInteractionEmbeddings(
      db,
      scope,
      embedder.modelId,
      batch.map((row, index) => ({ interaction_id: row.interaction_id, embedding: values[index]! })),
    );
    stored.catch(() => {});
    embedded += batch.length;
    batch = await next;
  }
  await stored;
  return embedded;
}
