import { loadSettings } from "@als/core";
import { guardProcessAgainstStorageFailures } from "@als/db";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import { startWorker } from "./start-worker.ts";

const settings = loadSettings(process.env);
// The SDK's runtime logs for the SDK and for us, and shuts the worker down on SIGINT and SIGTERM.
Runtime.install({ logger: new DefaultLogger(settings.logLevel.toUpperCase() as Uppercase<typeof settings.logLevel>) });
const log = Runtime.instance().logger;
// A dropped database connection fails the activities using it (Temporal retries them); it must not end the worker.
guardProcessAgainstStorageFailures(log);
try {
  const worker = await startWorker(settings, log);
  await worker.finished;
} catch (error) {
  log.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
