import { type AppError, errorBody, toAppError } from "@als/contract";
import type { Logger } from "../logger.ts";

/** Any thrown value → the AppError the client sees; unexpected errors and infrastructure causes are logged, never echoed. */
export function translateError(error: unknown, correlationId: string, log: Logger): AppError {
  const { appError, unexpected } = toAppError(error, correlationId);
  if (unexpected !== undefined) {
    log.error("unhandled error", { correlationId, error: unexpected instanceof Error ? (unexpected.stack ?? unexpected.message) : String(unexpected) });
  } else if (appError !== error) {
    log.error(appError.code, {
      correlationId,
      error: error instanceof Error ? error.message : String(error),
      ...(error instanceof Error && error.cause !== undefined && { cause: String(error.cause) }),
    });
  }
  return appError;
}

export function errorResponse(error: AppError, headers?: Record<string, string>): Response {
  return Response.json(errorBody(error), { status: error.status, ...(headers && { headers }) });
}
