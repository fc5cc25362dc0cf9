/**
 * No reranking model can be used. The message says what to put where; there is deliberately no
 * fallback to another ordering, since a caller asking for a rerank would not know it got none.
 */
export class RerankerUnavailableError extends Error {
  override readonly name = "RerankerUnavailableError";
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract); the message says what to install. */
  readonly errorCode = "reranker_unavailable";
}
