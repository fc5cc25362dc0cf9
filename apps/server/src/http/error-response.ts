import { AppError, errorBody } from "@als/contract";
import { StorageUnavailableError } from "@als/db";
import type { Logger } from "../logger.ts";

/** Any thrown value → the AppError the client sees; unexpected errors are logged, never echoed. */
export function toAppError(error: unknown, correlationId: string, log: Logger): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof StorageUnavailableError) {
    log.error("storage unavailable", { correlationId, cause: String(error.cause) });
    return new AppError("storage_unavailable", "storage is unavailable", { correlation_id: correlationId });
  }
  log.error("unhandled error", { correlationId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return new AppError("internal_error", "internal server error", { correlation_id: correlationId });
}

export function errorResponse(error: AppError): Response {
  return Response.json(errorBody(error), { status: error.status });
}
