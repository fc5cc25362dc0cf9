/**
 * The vector arm's default similarity floor per embedding model: cosine similarities of unrelated
 * texts sit lower for small sentence models than for large ones.
 */
const DEFAULT_THRESHOLDS: Record<string, number> = {
  "all-MiniLM-L6-v2-int8": 0.3,
};
const FALLBACK_THRESHOLD = 0.45;

export function defaultThreshold(modelId: string): number {
  return DEFAULT_THRESHOLDS[modelId] ?? FALLBACK_THRESHOLD;
}
