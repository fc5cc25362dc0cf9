import { FUSION } from "@als/db";

/**
 * Fuses the vector index's hits (cosine similarity) with the text arm's rows (text score) by the
 * weights the ranked-search SQL of packages/db fuses its arms with, in the same arithmetic, so
 * both paths order rows alike; ties go to the smaller id, as there. Best first.
 */
export function fuseByScore<Id extends string | number>(
  nearest: readonly { id: Id; similarity: number }[],
  matching: readonly { id: Id; textScore: number }[],
  similarityFloor: number,
): Id[] {
  const relevance = (similarity: number) => (similarityFloor === 1 ? 0 : Math.max(similarity - similarityFloor, 0) / (1 - similarityFloor));
  const found = new Map<Id, { relevance: number; textScore: number }>();
  for (const { id, similarity } of nearest) found.set(id, { relevance: relevance(similarity), textScore: 0 });
  for (const { id, textScore } of matching) found.set(id, { relevance: found.get(id)?.relevance ?? 0, textScore });
  const scored = [...found].map(([id, arms]) => ({ id, score: FUSION.vector * arms.relevance + FUSION.text * arms.textScore }));
  return scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(({ id }) => id);
}
