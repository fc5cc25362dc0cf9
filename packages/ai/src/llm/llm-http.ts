import { retryWithBackoff } from "../retry-with-backoff.ts";
import { LlmStallError, LlmUnavailableError } from "./llm.ts";

export interface LlmHttpOptions {
  /** Total tries of one call, the first included. */
  attempts: number;
  timeoutMs: number;
  baseDelayMs: number;
}

/** A failure worth another try: rate limits, server errors, network trouble, timeouts, invalid replies. */
export class TransientLlmError extends Error {
  constructor(
    message: string,
    /** Seconds the provider asked us to wait (retry-after), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

const RETRY_AFTER_CAP_SECONDS = 30;
const BILLING_WORDS = /insufficient_quota|billing|credit|payment/i;

interface ProviderErrorBody {
  error?: { type?: string; code?: string; message?: string };
}

/**
 * POSTs a JSON body to a provider once and returns the parsed JSON reply, classifying failures the
 * same way for every provider: refused credentials and exhausted money stall (never retried), other
 * client errors fail at once, the rest is TransientLlmError for withLlmRetries. Error messages carry
 * the status and the provider's error code or type only: never the key, the prompt or the
 * provider's free text, which may echo either.
 */
export async function postJson(url: string, headers: Record<string, string>, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    // Read inside the try: the timeout and a dropped connection can also strike while the body streams in.
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new TransientLlmError(`the provider could not be reached (${networkFailure(error)})`);
  }
  if (response.ok) {
    try {
      return JSON.parse(text);
    } catch {
      // A proxy's error page or a reply cut short: another attempt may fare better.
      throw new TransientLlmError(`the provider answered ${response.status} with a body that is not JSON`);
    }
  }
  let parsed: ProviderErrorBody = {};
  try {
    parsed = JSON.parse(text) as ProviderErrorBody;
  } catch {
    // Not JSON: the status alone classifies it.
  }
  const code = parsed.error?.code ?? parsed.error?.type ?? "unknown";
  const label = `the provider answered ${response.status} (${code})`;
  if (response.status === 401 || response.status === 403) throw new LlmStallError("auth", `${label}: check the API key`);
  // OpenAI's plain rate-limit messages can point at the billing page ("add a payment method to
  // increase your rate limit"); their code says they are rate limits, to be waited out.
  const rateLimited = /^rate_limit/.test(code);
  const billing = !rateLimited && BILLING_WORDS.test(`${parsed.error?.code ?? ""} ${parsed.error?.type ?? ""} ${parsed.error?.message ?? ""}`);
  if (response.status === 402 || (billing && (response.status === 429 || response.status === 400))) {
    throw new LlmStallError("billing", `${label}: check the account's billing and quota`);
  }
  if (response.status === 429 || response.status >= 500) {
    const retryAfter = Number(response.headers.get("retry-after"));
    throw new TransientLlmError(label, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }
  throw new LlmUnavailableError(label);
}

/**
 * What kind of network failure a fetch met: the error's name and, where the runtime gives one, its
 * code (ECONNREFUSED, ECONNRESET, ...), which says more than the name. Never its message, which
 * may quote the URL.
 */
function networkFailure(error: unknown): string {
  if (!(error instanceof Error)) return "network error";
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^[A-Za-z_]{1,40}$/.test(code) ? `${error.name}: ${code}` : error.name;
}

/**
 * Retries transient failures with jittered exponential backoff (after the provider's retry-after,
 * capped); once the attempts run out, the last failure becomes LlmUnavailableError.
 */
export async function withLlmRetries<T>(operation: () => Promise<T>, options: LlmHttpOptions): Promise<T> {
  try {
    return await retryWithBackoff(
      async () => {
        try {
          return await operation();
        } catch (error) {
          // The provider's own wait, when it gave one, comes before our backoff.
          if (error instanceof TransientLlmError && error.retryAfterSeconds) {
            await new Promise((resolve) => setTimeout(resolve, Math.min(error.retryAfterSeconds!, RETRY_AFTER_CAP_SECONDS) * 1000));
          }
          throw error;
        }
      },
      (error) => error instanceof TransientLlmError,
      { attempts: options.attempts, baseDelayMs: options.baseDelayMs, maxDelayMs: 20_000 },
    );
  } catch (error) {
    if (error instanceof TransientLlmError) throw new LlmUnavailableError(`gave up after ${options.attempts} attempts: ${error.message}`);
    throw error;
  }
}
