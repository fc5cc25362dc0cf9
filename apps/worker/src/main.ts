import { loadSettings } from "@als/core";
import { guardProcessAgainstStorageFailures } from "@als/db";
import { startTracing } from "@als/telemetry/start-tracing";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import { freeLoopbackPort } from "./free-loopback-port.ts";
import { startWorker } from "./start-worker.ts";
import { withTraceIds } from "./trace-id-logger.ts";

const settings = loadSettings(process.env);
// Before anything opens a span: off unless an OTLP endpoint is set.
const tracing = settings.tracing && startTracing(settings.tracing, "agent-learning-worker");
// With a metrics port, the SDK exports its own metrics on a loopback port nobody else is told of;
// the worker's /metrics reads them from there and serves them after its own (one scrape target).
const temporalMetricsAddress = settings.workerMetricsPort === undefined ? undefined : `127.0.0.1:${await freeLoopbackPort()}`;
// The SDK's runtime logs for the SDK and for us, and shuts the worker down on SIGINT and SIGTERM.
Runtime.install({
  logger: new DefaultLogger(settings.logLevel.toUpperCase() as Uppercase<typeof settings.logLevel>),
  ...(temporalMetricsAddress && { telemetryOptions: { metrics: { prometheus: { bindAddress: temporalMetricsAddress } } } }),
});
const log = withTraceIds(Runtime.instance().logger);
// A dropped database connection fails the activities using it (Temporal retries them); it must not end the worker.
guardProcessAgainstStorageFailures(log);
try {
  const worker = await startWorker(settings, log, {
    ...(temporalMetricsAddress && { temporalMetricsUrl: `http://${temporalMetricsAddress}/metrics` }),
    ...(tracing && { tracing }),
  });
  await worker.finished;
  await tracing?.shutdown();
} catch (error) {
  log.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
