/**
 * The vector arm's default similarity floor per embedding model: cosine similarities of unrelated
 * texts sit lower for small sentence models than for large ones. Chosen on the labelled set of
 * bench/retrieval-quality.ts (v1): the 1st percentile of the similarities of its 272 true
 * (query, learning) pairs, rounded down to 0.05, so the floor drops about 1 in 100 right answers
 * and still cuts what no paraphrase comes near. For all-MiniLM-L6-v2 that is 0.10 (0.132 measured);
 * the former 0.3 dropped a quarter of them (recall@5 0.71 against 0.98 without a floor).
 */
const DEFAULT_THRESHOLDS: Record<string, number> = {
  "all-MiniLM-L6-v2-int8": 0.1,
};
const FALLBACK_THRESHOLD = 0.45;

export function defaultThreshold(modelId: string): number {
  return DEFAULT_THRESHOLDS[modelId] ?? FALLBACK_THRESHOLD;
}
