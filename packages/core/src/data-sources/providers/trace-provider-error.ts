/**
 * Why a provider read failed. `credential_refused`: the provider answered 401/403; `rate_limited`:
 * it kept answering 429 past our retries, or asked to wait longer than we wait (retry_at says
 * when to try again); `unavailable`: unreachable, timed out, or an answer we cannot read.
 * Messages never hold a credential.
 */
export class TraceProviderError extends Error {
  constructor(
    readonly kind: "credential_refused" | "rate_limited" | "unavailable" | "not_found",
    message: string,
    /** Unix seconds after which the provider said it would answer again. */
    readonly retryAt: number | null = null,
  ) {
    super(message);
    this.name = "TraceProviderError";
  }
}
