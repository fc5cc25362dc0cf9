import {
  type CoreDeps,
  crashAt,
  createCoreDeps,
  durableWork,
  IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS,
  pruneExpiredIdempotencyKeys,
  type Reconciler,
  reconcile,
  type Settings,
  startBackgroundLoop,
  tracedLlm,
} from "@als/core";
import type { Scope } from "@als/db";
import { tracingOn } from "@als/telemetry";
import { scheduleThroughTemporal, scheduleWorkflow } from "@als/workflows/schedule-through-temporal";
import { Client, Connection } from "@temporalio/client";
import { OpenTelemetryWorkflowClientInterceptor } from "@temporalio/interceptors-opentelemetry/lib/client";
import { CoalescedSignals } from "./coalesced-signals.ts";
import type { Logger } from "./logger.ts";
import { createApiMetrics } from "./metrics/api-metrics.ts";

/**
 * The composition root: the domain dependencies built from the settings (see createCoreDeps), and
 * the orchestrator of long-running work: the in-process reconciler in embedded mode, a Temporal
 * client in full mode (the worker runs the work).
 */
export async function composeService(settings: Settings, log: Logger) {
  const graph = await createCoreDeps(settings, log);
  // Before anything holds the LLM: every call of the process (the reconciler's, a search's reformulation) is counted.
  const metrics = createApiMetrics(graph.deps);
  if (graph.deps.llm) graph.deps.llm = tracedLlm(metrics.meterLlm(graph.deps.llm));
  const mode = settings.storage.kind === "postgres" ? ("full" as const) : ("embedded" as const);
  let deps: CoreDeps;
  let reconciler: Reconciler | undefined;
  let connection: Connection | undefined;
  let learningSignals: CoalescedSignals<LearningSignal> | undefined;
  if (settings.temporal === undefined) {
    ({ deps, reconciler } = reconcile(graph.deps, (error: unknown) => log.error("reconciler pass failed", { error: String(error) })));
    reconciler.poke();
  } else {
    const { address, namespace, taskQueue, uiUrl } = settings.temporal;
    connection = await Connection.connect({ address });
    // Traced, a workflow started or signalled carries the request's trace to the worker's activities.
    const interceptors = tracingOn() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : {};
    const client = new Client({ connection, namespace, interceptors });
    const temporal = scheduleThroughTemporal(client, taskQueue, (what, id, error) => log.error(`could not ${what}`, { id, error: String(error) }));
    // A publish's learning signal is coalesced per user and sent after the answer; other work is started at once.
    const signals = learningSignalsTo(client, taskQueue, graph.deps, log);
    learningSignals = signals;
    deps = {
      ...graph.deps,
      ...(uiUrl && { temporalUi: { workflowsUrl: `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows` } }),
      orchestrator: {
        schedule: (kind, scope, id) => (kind === "learning" ? signals.request({ scope, userId: id }) : temporal.schedule(kind, scope, id)),
      },
    };
    void signalPendingLearning(deps, signals, log);
  }
  // Every API process prunes: a DELETE of expired rows is safe to run twice, and it needs no orchestrator.
  const keyPruning = startBackgroundLoop(
    () => pruneExpiredIdempotencyKeys(deps),
    IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS,
    (error) => log.error("could not prune expired idempotency keys", { error: String(error) }),
  );
  return {
    deps,
    mode,
    reconciler,
    metrics,
    async close() {
      metrics.close();
      keyPruning.stop();
      await keyPruning.idle();
      reconciler?.stop();
      await reconciler?.idle();
      const unsent = await learningSignals?.close(SIGNAL_FLUSH_MS);
      if (unsent) log.error("learning signals not sent before stopping; the next start signals them", { users: unsent });
      await connection?.close();
      await graph.close();
    },
  };
}

export interface LearningSignal {
  scope: Scope;
  userId: string;
}

/** Learning signals sent at once to Temporal, at most (each a signal-with-start of the user's workflow). */
const SIGNAL_CONCURRENCY = 8;
/**
 * A user's learning signals are at least this far apart: publishes in between share the next one.
 * Learning a window takes longer than this anyway; what it saves is the Temporal server's work for
 * each signal (a signal per publish held a co-located dev server at about 200 signals/s, 60% of a
 * core, in bench/publish.ts).
 */
const SIGNAL_INTERVAL_MS = 1_000;
/** Retries of a failed signal, then it is left to the next start's sweep (or the user's next publish). */
const SIGNAL_RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000];
/** How long a graceful stop waits for the signals still pending. */
const SIGNAL_FLUSH_MS = 5_000;

/**
 * The learning workflow's signals, sent after a publish has answered and coalesced per user (see
 * CoalescedSignals), the orchestrator's learning in full mode: a signal-with-start costs Temporal several
 * milliseconds (tens under load), which the publish no longer waits for.
 */
export function learningSignalsTo(client: Client, taskQueue: string, deps: Pick<CoreDeps, "crashPoints">, log: Logger): CoalescedSignals<LearningSignal> {
  return new CoalescedSignals<LearningSignal>({
    send: ({ scope, userId }) => scheduleWorkflow(client, taskQueue, durableWork("learning"), scope, userId),
    keyOf: ({ scope, userId }) => JSON.stringify([scope.orgId, scope.projectId, userId]),
    concurrency: SIGNAL_CONCURRENCY,
    minIntervalMs: SIGNAL_INTERVAL_MS,
    retryDelaysMs: SIGNAL_RETRY_DELAYS_MS,
    beforeSend: () => crashAt(deps, "learning_signal.before_send"),
    onError: ({ userId }, error, givenUp) =>
      log.error(givenUp ? "could not signal the learning workflow; left to the next start" : "could not signal the learning workflow; retrying", {
        id: userId,
        error: String(error),
      }),
  });
}

/**
 * Signals every user with interactions no learning has covered: a process stopped with signals
 * still pending (killed, or Temporal down past the retries) leaves them for this start-up sweep.
 */
async function signalPendingLearning(deps: CoreDeps, signals: CoalescedSignals<LearningSignal>, log: Logger): Promise<void> {
  try {
    for (const { scope, id } of await durableWork("learning").findWaiting(deps)) signals.request({ scope, userId: id });
  } catch (error) {
    log.error("could not find the users whose learning is pending", { error: String(error) });
  }
}
