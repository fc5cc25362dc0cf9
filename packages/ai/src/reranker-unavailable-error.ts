/**
 * No reranking model can be used. The message says what to put where; there is deliberately no
 * fallback to another ordering, since a caller asking for a rerank would not know it got none.
 */
export class RerankerUnavailableError extends Error {
  override readonly name = "RerankerUnavailableError";
}
