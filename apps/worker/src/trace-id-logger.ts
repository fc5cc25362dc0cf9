import { activeTraceId } from "@als/telemetry";
import type { Logger, LogMetadata } from "@temporalio/worker";

/**
 * `logger`, each line written inside a traced activity carrying its trace id (`traceId`), the id of
 * the request that scheduled the work (Temporal's interceptors carry it from the API): the API's
 * log lines, the worker's and the trace are found by one id. Off, lines are unchanged.
 */
export function withTraceIds(logger: Logger): Logger {
  const traced = (meta?: LogMetadata): LogMetadata | undefined => {
    const traceId = activeTraceId();
    return traceId ? { traceId, ...meta } : meta;
  };
  return {
    log: (level, message, meta) => logger.log(level, message, traced(meta)),
    trace: (message, meta) => logger.trace(message, traced(meta)),
    debug: (message, meta) => logger.debug(message, traced(meta)),
    info: (message, meta) => logger.info(message, traced(meta)),
    warn: (message, meta) => logger.warn(message, traced(meta)),
    error: (message, meta) => logger.error(message, traced(meta)),
  };
}
