import { TraceProviderError } from "./trace-provider-error.ts";

/** Attempts of one provider read: the first and up to three retries after rate-limit answers. */
export const PROVIDER_READ_ATTEMPTS = 4;
/** The longest Retry-After we wait in a request; a longer one fails the read with its retry_at. */
export const PROVIDER_MAX_RETRY_WAIT_SECONDS = 30;
/** Wait after a 429 that names no Retry-After. */
const DEFAULT_RETRY_WAIT_SECONDS = 1;
const REQUEST_TIMEOUT_MS = 20_000;

export interface ProviderRequest {
  method: "GET" | "POST";
  /** Path and query after the provider's base URL. */
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * One read of a provider's HTTP API, its JSON answer and headers. A 429 (or 503 with Retry-After)
 * is retried after the wait the provider asks for, up to PROVIDER_READ_ATTEMPTS and never longer
 * than PROVIDER_MAX_RETRY_WAIT_SECONDS a wait: a read that would wait longer fails with the time
 * to come back, rather than holding a request or a step open for an hour.
 */
export async function providerRequest(baseUrl: string, request: ProviderRequest, now: () => number): Promise<{ body: unknown; headers: Headers }> {
  const url = `${baseUrl.replace(/\/+$/, "")}${request.path}`;
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: request.method,
        headers: { accept: "application/json", ...(request.body !== undefined && { "content-type": "application/json" }), ...request.headers },
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
        redirect: "error",
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new TraceProviderError("unavailable", `the provider did not answer ${request.method} ${request.path}: ${(error as Error).name}`);
    }
    if (response.ok) {
      try {
        return { body: await response.json(), headers: response.headers };
      } catch {
        throw new TraceProviderError("unavailable", `the provider's answer to ${request.method} ${request.path} is not JSON`);
      }
    }
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) {
      throw new TraceProviderError("credential_refused", `the provider refused the credential (HTTP ${response.status})`);
    }
    if (response.status === 404) throw new TraceProviderError("not_found", `the provider has no ${request.path.split("?")[0]} (HTTP 404)`);
    const retryable = response.status === 429 || (response.status === 503 && response.headers.has("retry-after"));
    if (!retryable)
      throw new TraceProviderError("unavailable", `the provider answered HTTP ${response.status} to ${request.method} ${request.path.split("?")[0]}`);
    const waitSeconds = retryAfterSeconds(response.headers.get("retry-after"), now());
    if (waitSeconds > PROVIDER_MAX_RETRY_WAIT_SECONDS || attempt >= PROVIDER_READ_ATTEMPTS) {
      throw new TraceProviderError(
        "rate_limited",
        `the provider's rate limit holds (HTTP ${response.status}, ${attempt} attempts)`,
        now() + Math.ceil(waitSeconds),
      );
    }
    // Core also runs in the Node worker (activities): no Bun.sleep.
    await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000));
  }
}

/** Retry-After as seconds to wait: a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(header: string | null, nowSeconds: number): number {
  if (header === null || header.trim() === "") return DEFAULT_RETRY_WAIT_SECONDS;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? DEFAULT_RETRY_WAIT_SECONDS : Math.max(0, date / 1000 - nowSeconds);
}
