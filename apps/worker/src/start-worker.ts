import type { Server } from "node:http";
import {
  type BackgroundLoop,
  type CoreDeps,
  createCoreDeps,
  registerProcessMetrics,
  type Settings,
  startDocumentExpansionLoop,
  startVectorSyncLoop,
  tracedLlm,
  type VectorSyncLoop,
} from "@als/core";
import type { Tracing } from "@als/telemetry";
import { scheduleThroughTemporal } from "@als/workflows/schedule-through-temporal";
import { Client } from "@temporalio/client";
import { type Logger, NativeConnection, Worker } from "@temporalio/worker";
import { Registry } from "prom-client";
import { createActivities } from "./activities.ts";
import { activityMetrics } from "./activity-metrics.ts";
import { startMetricsListener } from "./metrics-listener.ts";
import { registerSearchAttributes } from "./register-search-attributes.ts";
import { scheduleStaleReembeds } from "./schedule-stale-reembeds.ts";
import { scheduleWaitingWork } from "./schedule-waiting-work.ts";
import { workerTracing } from "./worker-tracing.ts";
import { workflowBundle } from "./workflow-bundle.ts";

export interface RunningWorker {
  /** Stops polling, lets in-flight steps finish; `finished` then resolves. */
  shutdown(): void;
  /** Resolves when the worker has stopped and its resources are closed. */
  finished: Promise<void>;
}

/**
 * The worker's composition root: builds the domain dependencies once (see createCoreDeps), registers
 * the workflows and activities on the task queue, then schedules the re-embedding the current model
 * calls for and every item of durable work that waits (scheduleWaitingWork).
 */
export interface WorkerOptions {
  /** The Temporal SDK's Prometheus exporter (see main.ts), served after the worker's own metrics. */
  temporalMetricsUrl?: string;
  /** The process's tracer (see main.ts); unset: no tracing. */
  tracing?: Tracing;
}

export async function startWorker(settings: Settings, log: Logger, options: WorkerOptions = {}): Promise<RunningWorker> {
  const { storage, temporal } = settings;
  if (storage.kind !== "postgres" || temporal === undefined) {
    throw new Error("the worker serves full mode; set DATABASE_URL and TEMPORAL_ADDRESS");
  }
  const graph = await createCoreDeps(settings, log, { searches: false });
  // Before the activities hold the LLM: every call of the worker is counted.
  const registry = new Registry();
  const processMetrics = registerProcessMetrics(registry, graph.deps.db, graph.deps.services.activity);
  if (graph.deps.llm) graph.deps.llm = tracedLlm(processMetrics.meterLlm(graph.deps.llm));
  let metricsListener: Server | undefined;
  if (settings.workerMetricsPort !== undefined) {
    try {
      metricsListener = await startMetricsListener({
        host: settings.host,
        port: settings.workerMetricsPort,
        access: settings.metrics,
        registry,
        ...(options.temporalMetricsUrl && { temporalMetricsUrl: options.temporalMetricsUrl }),
      });
    } catch (error) {
      await graph.close();
      throw new Error(`cannot serve metrics on ${settings.host}:${settings.workerMetricsPort}: ${error instanceof Error ? error.message : String(error)}`);
    }
    log.info("metrics listening", { url: `http://${settings.host}:${settings.workerMetricsPort}/metrics` });
  }
  const connection = await NativeConnection.connect({ address: temporal.address }).catch(async (error: unknown) => {
    await graph.close();
    throw error;
  });
  const traced = workerTracing(options.tracing);
  const client = new Client({ connection, namespace: temporal.namespace, interceptors: traced.client });
  // The steps schedule work too (a collection step, its imported users' learning and sessions' evaluations).
  const deps: CoreDeps = {
    ...graph.deps,
    orchestrator: scheduleThroughTemporal(client, temporal.taskQueue, (what, id, error) => log.error(`could not ${what}`, { id, error: String(error) })),
  };
  // Every worker drains the vector outbox; its drain lock lets one at a time push.
  const vectorSync: VectorSyncLoop | undefined =
    deps.vectorIndex &&
    startVectorSyncLoop({ db: deps.db, vectorIndex: deps.vectorIndex }, (error) => log.error("vector index sync failed", { error: String(error) }));
  // Every worker expands the learnings of projects that enable it; a lease per project keeps the LLM calls apart.
  const documentExpansion: BackgroundLoop | undefined =
    deps.llm && startDocumentExpansionLoop({ ...deps, llm: deps.llm }, (error) => log.error("document expansion failed", { error: String(error) }));
  const activities = createActivities(deps, { searchAttributes: await registerSearchAttributes(connection, temporal.namespace, log) });
  const worker = await Worker.create({
    connection,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    workflowBundle: await workflowBundle(traced.workflowModules, log),
    activities,
    interceptors: { activity: [activityMetrics(registry, new Set(Object.keys(activities))), ...traced.activity] },
    sinks: traced.sinks,
    // Every activity but re-embedding is a step that waits on the LLM: run as many at once as the
    // provider takes calls (LLM_CONCURRENCY), the embedded reconciler's number of learning lanes.
    maxConcurrentActivityTaskExecutions: settings.learning.concurrency,
  });
  const finished = worker.run().finally(async () => {
    metricsListener?.close();
    processMetrics.close();
    vectorSync?.stop();
    documentExpansion?.stop();
    await vectorSync?.idle();
    await documentExpansion?.idle();
    await connection.close();
    await graph.close();
  });
  try {
    const started = await scheduleStaleReembeds(client, deps, temporal.taskQueue);
    log.info("re-embedding scheduled", { modelId: deps.embedder.modelId, started });
    await scheduleWaitingWork(client, deps, temporal.taskQueue, log);
  } catch (error) {
    // Stopped meanwhile (SIGTERM while a long backlog was being scheduled): the scheduling failed
    // because the stop closed what it used, and the stop is what happened, not a failed start.
    const stopped = worker.getState() !== "RUNNING";
    if (!stopped) worker.shutdown();
    await finished;
    if (!stopped) throw error;
  }
  return { shutdown: () => worker.shutdown(), finished };
}
