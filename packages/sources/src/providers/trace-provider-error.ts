/**
 * Why a provider read failed. `credential_refused`: the provider answered 401/403; `rejected`: it
 * refused the query itself (400/422: a query or a filter it cannot run); `not_found`: the endpoint
 * or the project is not there (404, or 410 for a removed endpoint); `rate_limited`: it kept
 * answering 429 past our retries, or asked to wait longer than we wait (retry_at says when to try
 * again); `unavailable`: unreachable, timed out, a 5xx, or an answer we cannot read. The first
 * three do not pass by waiting: they need the operator. Messages never hold a credential.
 */
export class TraceProviderError extends Error {
  constructor(
    readonly kind: "credential_refused" | "rate_limited" | "unavailable" | "not_found" | "rejected",
    message: string,
    /** Unix seconds after which the provider said it would answer again. */
    readonly retryAt: number | null = null,
  ) {
    super(message);
    this.name = "TraceProviderError";
  }
}
