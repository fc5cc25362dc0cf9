import { activeTraceId } from "@als/telemetry";

export type LogLevel = "debug" | "info" | "warn" | "error";
const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * One JSON line per event on stderr. Callers pass ids and counts, never request bodies or secrets.
 * A line logged inside a traced request carries its trace id (`traceId`), as its spans do.
 */
export function createLogger(level: LogLevel): Logger {
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const traceId = activeTraceId();
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: at, message, ...(traceId && { traceId }), ...fields })}\n`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
