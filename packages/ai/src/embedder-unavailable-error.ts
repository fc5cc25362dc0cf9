/**
 * The configured embedding model cannot be used. The message says what to install or configure;
 * there is deliberately no fallback to made-up vectors.
 */
export class EmbedderUnavailableError extends Error {
  override readonly name = "EmbedderUnavailableError";
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract); the message names the model and what to do. */
  readonly errorCode = "embedding_unavailable";
}
