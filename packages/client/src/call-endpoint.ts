import type { Endpoint } from "@als/contract";
import { buildRequest } from "./build-request.ts";
import { ClientError, decodeErrorResponse } from "./client-error.ts";
import { backoffMs, isIdempotent, isRetryableStatus, retryAfterMs, sleep } from "./retry-policy.ts";

/** The part of fetch the client uses (Bun's `typeof fetch` also demands `preconnect`). */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

/** What every call of one client shares (createClient's options with their defaults applied). */
export interface ClientSettings {
  baseUrl: string;
  apiKey?: string;
  fetch: FetchFunction;
  /** For endpoints that do not declare their own timeoutMs. */
  timeoutMs: number;
  retries: number;
  validateResponses: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call; its reason is what the call rejects with. */
  signal?: AbortSignal;
  /** How long each attempt may take; default: the endpoint's timeoutMs, else the client's. */
  timeoutMs?: number;
  /**
   * The Idempotency-Key of a call to an endpoint that takes one; default: a new random key per call.
   * A caller that retries on its own (after its process restarted, say) passes the first call's key.
   */
  idempotencyKey?: string;
}

type Attempt = { response: Response; text: string } | { networkError: unknown };

/**
 * One call of an endpoint: the request built from the declaration, each attempt bounded by the
 * timeout, idempotent calls repeated on network errors and "try again" answers, any other non-2xx
 * answer thrown as a ClientError. Every attempt carries the call's one correlation id, so the
 * server's logs tie the attempts together. A POST to an endpoint that takes an Idempotency-Key
 * carries one, the same in every attempt, so it is repeated too: the server answers a repeat of
 * a write it already made with that write's answer instead of writing again.
 */
export async function callEndpoint(settings: ClientSettings, endpoint: Endpoint, input: unknown, options: CallOptions = {}): Promise<unknown> {
  const { url, init, correlationId } = requestOf(settings, endpoint, input, options);
  const timeoutMs = options.timeoutMs ?? endpoint.timeoutMs ?? settings.timeoutMs;
  const retries = isIdempotent(endpoint.method) || endpoint.idempotencyKey ? settings.retries : 0;

  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(settings.fetch, url, init, timeoutMs, options.signal, endpoint.procedure, correlationId);
    const canRetry = attempt < retries;
    if ("networkError" in outcome) {
      if (!canRetry) {
        const reason = outcome.networkError instanceof Error ? outcome.networkError.message : String(outcome.networkError);
        throw new ClientError(0, "network_error", `${endpoint.procedure}: ${reason}`, [], { correlation_id: correlationId }, { cause: outcome.networkError });
      }
      await sleep(backoffMs(attempt), options.signal);
      continue;
    }
    const { response, text } = outcome;
    if (response.ok) return decodeSuccess(endpoint, response.status, text, settings.validateResponses);
    if (canRetry && isRetryableStatus(response.status)) {
      const wait = retryAfterMs(response.headers) ?? backoffMs(attempt);
      if (wait !== Number.POSITIVE_INFINITY) {
        await sleep(wait, options.signal);
        continue;
      }
    }
    throw decodeErrorResponse(response.status, text);
  }
}

/** The URL and the request of a call: its headers (credential, correlation id, Idempotency-Key) and body. */
export function requestOf(
  settings: ClientSettings,
  endpoint: Endpoint,
  input: unknown,
  options: CallOptions,
): { url: string; init: RequestInit; correlationId: string } {
  const { url, body } = buildRequest(settings.baseUrl, endpoint, input);
  const correlationId = crypto.randomUUID();
  const headers: Record<string, string> = { accept: "application/json", "x-correlation-id": correlationId };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  // A structured-field string, as the IETF draft writes the header.
  if (endpoint.idempotencyKey) headers["idempotency-key"] = `"${options.idempotencyKey ?? crypto.randomUUID()}"`;
  return { url, init: { method: endpoint.method, headers, ...(body !== undefined && { body }) }, correlationId };
}

/** One request, its body read under the same timer (a server can stall mid-body as well as before it). */
async function attemptOnce(
  fetchFn: FetchFunction,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
  procedure: string,
  correlationId: string,
): Promise<Attempt> {
  callerSignal?.throwIfAborted();
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, timeoutMs);
  callerSignal?.addEventListener("abort", abort, { once: true });
  try {
    const response = await fetchFn(url, { ...init, signal: controller.signal });
    return { response, text: await response.text() };
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (controller.signal.aborted) {
      throw new ClientError(0, "timeout", `${procedure} did not answer within ${timeoutMs} ms`, [], { correlation_id: correlationId });
    }
    return { networkError: error };
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener("abort", abort);
  }
}

/** A 2xx body as JSON, parsed through the output schema when the client validates responses. */
function decodeSuccess(endpoint: Endpoint, status: number, text: string, validate: boolean): unknown {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ClientError(status, "invalid_response", `${endpoint.procedure} answered ${status} with a body that is not JSON`);
  }
  if (!validate) return body;
  const parsed = endpoint.output.safeParse(body);
  if (parsed.success) return parsed.data;
  const message = `${endpoint.procedure} answered a body its output schema refuses: ${parsed.error.message}`;
  throw new ClientError(status, "invalid_response", message, [], {}, { cause: parsed.error });
}
