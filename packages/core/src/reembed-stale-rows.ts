import { type EmbeddedKind, type Scope, type StaleRow, staleEmbeddings } from "@als/db";
import type { CoreDeps } from "./deps.ts";
import { embeddingTextOf } from "./playbooks/playbook-text.ts";

export interface ReembedProgress {
  /** Rows given a vector of the current model by this step. */
  reembedded: number;
  /** Rows of every kind still carrying another model's vector (or none) after this step. */
  remaining: number;
}

/** The text each kind's vector is computed from, as when the row was written. */
const embeddingText: Record<EmbeddedKind, (row: StaleRow) => string> = {
  profiles: (row) => row.content,
  user_playbooks: embeddingTextOf,
  agent_playbooks: embeddingTextOf,
};

/**
 * One idempotent step of re-embedding a project with the current model: takes the next batch of
 * the first kind (profiles, user playbooks, agent playbooks) that still has rows whose vector came
 * from another model, embeds it and stores the vectors. The rows themselves are the cursor, so the
 * step can be repeated, interrupted and resumed by any worker.
 */
export async function reembedStaleRowsStep(deps: CoreDeps, scope: Scope, batchSize: number): Promise<ReembedProgress> {
  const modelId = deps.embedder.modelId;
  let reembedded = 0;
  for (const kind of staleEmbeddings.EMBEDDED_KINDS) {
    const batch = await staleEmbeddings.findRowsWithStaleEmbedding(deps.db, scope, kind, modelId, batchSize);
    if (batch.length === 0) continue;
    const vectors = await deps.embedder.embedDocuments(batch.map(embeddingText[kind]));
    const updates = batch.map((row, index) => ({ ...row, embedding: vectors[index]! }));
    reembedded = await staleEmbeddings.storeEmbeddings(deps.db, scope, kind, modelId, updates);
    break;
  }
  return { reembedded, remaining: await staleEmbeddings.countRowsWithStaleEmbedding(deps.db, scope, modelId) };
}
