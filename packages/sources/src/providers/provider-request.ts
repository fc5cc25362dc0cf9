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
    const said = await providerMessage(response, request.headers);
    const endpoint = `${request.method} ${request.path.split("?")[0]}`;
    if (response.status === 401 || response.status === 403) {
      throw new TraceProviderError("credential_refused", `the provider refused the credential (HTTP ${response.status}${said})`);
    }
    if (response.status === 404) throw new TraceProviderError("not_found", `the provider has no ${endpoint} (HTTP 404${said})`);
    if (response.status === 410) throw new TraceProviderError("not_found", `the provider removed ${endpoint} (HTTP 410${said})`);
    if (response.status === 400 || response.status === 422) {
      throw new TraceProviderError("rejected", `the provider rejected ${endpoint} (HTTP ${response.status}${said})`);
    }
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

/** Characters of a provider's error message kept: enough to say what it refused. */
const MESSAGE_CHARS = 300;

/**
 * What the provider said about a refusal, as `: <message>` (empty when it said nothing readable):
 * its `message`, `detail`, `error` or `title`, with every credential we sent, and anything shaped
 * like a provider key, masked.
 */
async function providerMessage(response: Response, sent: Record<string, string>): Promise<string> {
  let text: string;
  try {
    text = (await response.text()).slice(0, 4096);
  } catch {
    return "";
  }
  let message: unknown = text;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    message = body.message ?? body.detail ?? body.error ?? body.title ?? text;
  } catch {}
  let said = typeof message === "string" ? message : JSON.stringify(message);
  const secrets = Object.values(sent).flatMap((value) => {
    const [scheme, token] = value.split(" ");
    const basic = scheme === "Basic" && token ? Buffer.from(token, "base64").toString("utf8").split(":") : [];
    return [value, ...(token ? [token] : []), ...basic];
  });
  for (const secret of secrets) if (secret.length >= 8) said = said.split(secret).join("***");
  said = said
    .replace(/\b(sk|pk|lsv2)[-_][A-Za-z0-9_-]{4,}/g, "***")
    .replace(/\s+/g, " ")
    .trim();
  if (said === "") return "";
  return `: ${said.length > MESSAGE_CHARS ? `${said.slice(0, MESSAGE_CHARS)}...` : said}`;
}

/** Retry-After as seconds to wait: a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(header: string | null, nowSeconds: number): number {
  if (header === null || header.trim() === "") return DEFAULT_RETRY_WAIT_SECONDS;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? DEFAULT_RETRY_WAIT_SECONDS : Math.max(0, date / 1000 - nowSeconds);
}
