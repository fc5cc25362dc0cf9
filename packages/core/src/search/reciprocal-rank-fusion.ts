import { RRF_K } from "@als/db";

/**
 * Fuses rankings (each best first) by reciprocal rank fusion: an id scores Σ 1 / (RRF_K + rank)
 * over the rankings it appears in, as the ranked-search SQL of packages/db fuses its arms; ties go
 * to the smaller id, as there. Best first.
 */
export function fuseByReciprocalRank<Id extends string | number>(rankings: readonly (readonly Id[])[]): Id[] {
  const scores = new Map<Id, number>();
  for (const ranking of rankings) {
    for (const [index, id] of ranking.entries()) scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + index + 1));
  }
  return [...scores].sort(([a, scoreA], [b, scoreB]) => scoreB - scoreA || (a < b ? -1 : a > b ? 1 : 0)).map(([id]) => id);
}
