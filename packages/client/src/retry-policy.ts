import type { HttpMethod } from "@als/contract";

/** Methods whose repetition leaves the same state as one call; a POST is never repeated (it may have taken effect). */
const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(["GET", "PUT", "DELETE"]);

/** Answers that say "try again": the gateway or the service is briefly unable, or the caller goes too fast. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

const BASE_DELAY_MS = 200;
const MAX_DELAY_MS = 5_000;
/** A Retry-After longer than this is not waited out: the caller hears the 429 or 503 and decides. */
const MAX_RETRY_AFTER_MS = 60_000;

export const isIdempotent = (method: HttpMethod): boolean => IDEMPOTENT_METHODS.has(method);

export const isRetryableStatus = (status: number): boolean => RETRYABLE_STATUSES.has(status);

/** Exponential backoff with full jitter, so clients failed by the same outage do not come back in step. */
export const backoffMs = (attempt: number): number => Math.random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);

/**
 * How long an answer asks to wait before the next attempt (Retry-After in seconds or as an HTTP
 * date); undefined when it does not say, Infinity when it asks for longer than the client waits.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  if (Number.isNaN(ms)) return undefined;
  return ms > MAX_RETRY_AFTER_MS ? Number.POSITIVE_INFINITY : Math.max(0, ms);
}

/** Waits `ms`, or rejects with the caller's abort reason as soon as the caller gives up. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
