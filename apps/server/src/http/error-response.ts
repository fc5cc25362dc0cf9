import { type AppError, errorBody, toAppError } from "@als/contract";
import type { Logger } from "../logger.ts";

/** Any thrown value → the AppError the client sees; unexpected errors and infrastructure causes are logged, never echoed. */
export function translateError(error: unknown, correlationId: string, log: Logger): AppError {
  const { appError, unexpected } = toAppError(error, correlationId);
  if (unexpected !== undefined) {
    log.error("unhandled error", { correlationId, error: unexpected instanceof Error ? (unexpected.stack ?? unexpected.message) : String(unexpected) });
  } else if (appError !== error && appError.code !== "overloaded") {
    // A search refused under load is the service protecting itself, not a fault: not logged per request.
    log.error(appError.code, {
      correlationId,
      error: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && error.cause !== undefined && { cause: String(error.cause) }),
    });
  }
  return appError;
}

/** The error code each error answer was made for, so the request metrics count answers by code without reading bodies. */
const codeOfAnswer = new WeakMap<Response, string>();

/** The error code `response` answers with (see errorResponse), or undefined for an answer that is not an error. */
export function errorCodeOf(response: Response): string | undefined {
  return codeOfAnswer.get(response);
}

/**
 * The error's body and status; an error with a `retry_after` detail (seconds) also sends it as
 * Retry-After, and a 401 names the scheme it wants (WWW-Authenticate, RFC 9110).
 */
export function errorResponse(error: AppError, headers?: Record<string, string>): Response {
  const retryAfter = error.details.retry_after;
  const all = {
    ...headers,
    ...(typeof retryAfter === "number" && { "retry-after": String(retryAfter) }),
    ...(error.code === "unauthorized" && { "www-authenticate": 'Bearer realm="agent-learning-service"' }),
  };
  const response = Response.json(errorBody(error), { status: error.status, headers: all });
  codeOfAnswer.set(response, error.code);
  return response;
}
