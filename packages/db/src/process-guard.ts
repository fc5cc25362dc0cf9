import { StorageUnavailableError } from "./driver.ts";
import { classifyStorageError } from "./storage-failure.ts";

interface ProcessLog {
  error(message: string, fields?: Record<string, unknown>): void;
}

// postgres.js's connection code, from either of its builds (ESM under Bun and Node, CommonJS).
const DRIVER_CONNECTION_CODE = /[\\/]postgres[\\/](cjs[\\/])?src[\\/]connection\.js/;

/**
 * A storage failure that no caller was left to receive: a connection error, or a fault thrown by
 * the driver's connection code from one of its own timers (postgres.js issue #1066: a write to a
 * socket that closed, which patches/postgres@3.4.9.patch fixes; this catches its kin).
 */
function isStrayStorageFailure(error: unknown): boolean {
  if (error instanceof StorageUnavailableError || classifyStorageError(error) !== undefined) return true;
  return error instanceof TypeError && DRIVER_CONNECTION_CODE.test(error.stack ?? "");
}

/**
 * Installs the process's last line against a dropped database connection: a storage failure that
 * escapes every caller is logged and the process keeps serving (the requests that were using the
 * connection answer 503 through their own errors). Anything else uncaught is logged and ends the
 * process with exit code 1, as without a handler: its state is unknown, and the supervisor
 * (infra/systemd, a container restart policy, scripts/serve) starts it again.
 */
export function guardProcessAgainstStorageFailures(log: ProcessLog): void {
  const handle = (kind: "uncaughtException" | "unhandledRejection") => (error: unknown) => {
    const described = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (isStrayStorageFailure(error)) {
      log.error(`storage failure outside any request (${kind}); still serving`, { error: described });
      return;
    }
    log.error(`${kind}; exiting`, { error: described });
    process.exit(1);
  };
  process.on("uncaughtException", handle("uncaughtException"));
  process.on("unhandledRejection", handle("unhandledRejection"));
}
