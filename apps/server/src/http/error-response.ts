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

/**
 * Where an error answer carries the code it was made for, so the request metrics count answers by
 * code without reading bodies: on the answer itself, gone with it.
 */
const ERROR_CODE = Symbol("error code");

/** The error code `response` answers with (see errorResponse), or undefined for an answer that is not an error. */
export function errorCodeOf(response: Response): string | undefined {
  return (response as Response & { [ERROR_CODE]?: string })[ERROR_CODE];
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
  return Object.assign(Response.json(errorBody(error), { status: error.status, headers: all }), { [ERROR_CODE]: error.code });
}
