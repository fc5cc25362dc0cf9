import { type CoreDeps, crashAt, durableWork, type Settings } from "@als/core";
import type { Scope } from "@als/db";
import { tracingOn } from "@als/telemetry";
import { scheduleThroughTemporal, scheduleWorkflow } from "@als/workflows/schedule-through-temporal";
import { Client, Connection } from "@temporalio/client";
import { OpenTelemetryWorkflowClientInterceptor } from "@temporalio/interceptors-opentelemetry/lib/client";
import { CoalescedSignals } from "./coalesced-signals.ts";
import type { Logger } from "./logger.ts";

/**
 * Full mode's orchestrator: durable work started as Temporal workflows, run by the workers.
 * composeService loads this module only in full mode: the Temporal client and its protocol
 * definitions take about 0.4 s of CPU to load, which an embedded start would pay for nothing.
 */
export async function temporalOrchestrator(temporal: NonNullable<Settings["temporal"]>, deps: CoreDeps, log: Logger) {
  const { address, namespace, taskQueue, uiUrl } = temporal;
  const connection = await Connection.connect({ address });
  // Traced, a workflow started or signalled carries the request's trace to the worker's activities.
  const interceptors = tracingOn() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : {};
  const client = new Client({ connection, namespace, interceptors });
  const scheduler = scheduleThroughTemporal(client, taskQueue, (what, id, error) => log.error(`could not ${what}`, { id, error: String(error) }));
  // A publish's learning signal is coalesced per user and sent after the answer; other work is started at once.
  const signals = learningSignalsTo(client, taskQueue, deps, log);
  const withTemporal: CoreDeps = {
    ...deps,
    ...(uiUrl && { temporalUi: { workflowsUrl: `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows` } }),
    orchestrator: {
      schedule: (kind, scope, id) => (kind === "learning" ? signals.request({ scope, userId: id }) : scheduler.schedule(kind, scope, id)),
    },
  };
  void signalPendingLearning(withTemporal, signals, log);
  return {
    deps: withTemporal,
    async close() {
      const unsent = await signals.close(SIGNAL_FLUSH_MS);
      if (unsent) log.error("learning signals not sent before stopping; the next start signals them", { users: unsent });
      await connection.close();
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
