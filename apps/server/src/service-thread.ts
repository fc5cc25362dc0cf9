import { loadSettings, memoryMappingLimit, RECOMMENDED_MAPPING_LIMIT, type Settings } from "@als/core";
import { guardProcessAgainstStorageFailures } from "@als/db";
import { type AccountServices, createAccountServices } from "@als/identity";
import { buildApp } from "./app.ts";
import { composeService } from "./compose.ts";
import { createLogger } from "./logger.ts";

/**
 * The service: settings, storage, the app listening, and its shutdown. It runs in a worker thread
 * that main.ts starts (the process's main thread receives the signals and passes them on as
 * messages). Before the service listens a stop ends the thread at once, as the signal itself did.
 */
let stop: (() => Promise<void>) | undefined;
let stopping = false;
addEventListener("message", () => {
  if (stopping) return;
  stopping = true;
  if (stop) void stop();
  else process.exit(0);
});

let settings: Settings;
try {
  settings = loadSettings(process.env);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const log = createLogger(settings.logLevel);
// Before anything opens a span (or a Temporal client that carries them): off unless an OTLP endpoint
// is set, and then the only time the SDK and its exporter are loaded.
const tracing = settings.tracing && (await import("@als/telemetry/start-tracing")).startTracing(settings.tracing, "agent-learning-api");
// A dropped database connection fails the requests using it (503); it must not end the process.
guardProcessAgainstStorageFailures(log);
let service: Awaited<ReturnType<typeof composeService>>;
let accounts: AccountServices;
try {
  service = await composeService(settings, log);
  accounts = await createAccountServices(settings.identity, log);
} catch (error) {
  log.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const app = buildApp({
  deps: service.deps,
  log,
  mode: service.mode,
  backstopMs: settings.backstopMs,
  maxBodyBytes: settings.maxBodyBytes,
  healthTimeoutMs: settings.healthTimeoutMs,
  ...(settings.healthDisk && { healthDisk: settings.healthDisk }),
  serverTiming: settings.serverTiming,
  browser: settings.browser,
  authMode: settings.identity.authMode,
  rateLimits: settings.identity.rateLimits,
  trustedProxies: settings.identity.trustedProxies,
  accounts,
  metrics: service.metrics,
  metricsAccess: settings.metrics,
});
try {
  // Bun refuses bodies past its own limit before the app sees them; the app answers 413 with the contract's body just above ours.
  // reusePort off: Elysia's default lets a second process listen on a port in use and the kernel share
  // the connections out between them, so a service started twice would answer from both at random.
  app.listen({ hostname: settings.host, port: settings.port, maxRequestBodySize: settings.maxBodyBytes + 1, reusePort: false });
} catch (error) {
  log.error(
    `cannot start: cannot listen on ${settings.host}:${settings.port}, which another process may be using (${error instanceof Error ? error.message : String(error)})`,
  );
  await accounts.mailer.close();
  await service.close();
  process.exit(1);
}
const url = `http://${settings.host}:${settings.port}`;
// On a local server the console needs no account from this machine: the first thing a new user opens.
const consoleNote = settings.identity.authMode === "local" ? { console: `${url}/console/ (no sign-in from this machine)` } : {};
log.info("listening", { url, mode: service.mode, storage: settings.storage.kind, ...consoleNote });
if (!settings.collectionTimerOff)
  log.warn(
    'BUN_GC_TIMER_DISABLE is not set: Bun collects the service\'s heap up to 60 times a second while it is busy; start the server with BUN_GC_TIMER_DISABLE=1, as scripts/serve does, for about a quarter more searches a second (docs/operations.md, "Deployment and supervision")',
  );
const mappingLimit = memoryMappingLimit();
if (mappingLimit !== undefined && mappingLimit < RECOMMENDED_MAPPING_LIMIT)
  log.warn(
    `vm.max_map_count is ${mappingLimit}: a process serving 100k learnings of each kind from memory can reach it and stall; set it to ${RECOMMENDED_MAPPING_LIMIT} (docs/operations.md, "Memory mappings")`,
  );

// One shutdown, however many requests: scripts/serve forwards the SIGTERM (or Ctrl-C) that the process
// group also received, and a second run would close the database under the first one's last work.
stop = async () => {
  await app.stop();
  await accounts.mailer.close();
  await service.close();
  await tracing?.shutdown();
  process.exit(0);
};
