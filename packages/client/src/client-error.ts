import type { ErrorCode, FieldIssue } from "@als/contract";

/**
 * Codes of failures the client sees without a contract error body: the call timed out, the network
 * failed, an answer that is not the contract's error body (a proxy's 502 page), or a success body
 * its output schema refuses (`validateResponses`).
 */
export type ClientSideCode = "timeout" | "network_error" | "http_error" | "invalid_response";

/** The JSON body of a contract error: `error` is the code, `detail` the message or the 422 issue list. */
export type ErrorResponseBody = { error: string; detail?: string | FieldIssue[]; message?: string } & Record<string, unknown>;

/**
 * A call that did not succeed. `status` is the HTTP status (0 when no answer arrived), `code` the
 * body's `error` (a server newer than this client may answer a code it does not know), `issues` the
 * 422's field list, `details` the body's other fields (reason, correlation_id, request_id, ...).
 */
export class ClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | ClientSideCode | (string & {}),
    message: string,
    readonly issues: FieldIssue[] = [],
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ClientError";
  }
}

/** The ClientError of a non-2xx answer, from its contract error body when it carries one. */
export function decodeErrorResponse(status: number, text: string): ClientError {
  const body = parseErrorBody(text);
  if (!body) return new ClientError(status, "http_error", `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`);
  const { error, detail, message, ...details } = body;
  if (Array.isArray(detail)) return new ClientError(status, error, message ?? "validation failed", detail, details);
  return new ClientError(status, error, detail ?? message ?? `HTTP ${status}`, [], details);
}

function parseErrorBody(text: string): ErrorResponseBody | undefined {
  try {
    const body: unknown = JSON.parse(text);
    const isErrorBody = typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string";
    return isErrorBody ? (body as ErrorResponseBody) : undefined;
  } catch {
    return undefined;
  }
}
