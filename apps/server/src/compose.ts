import { attachReconciler, type CoreDeps, crashAt, createCoreDeps, type Reconciler, type Settings, schedulePendingLearning } from "@als/core";
import type { Scope } from "@als/db";
import { signalLearnUser } from "@als/workflows/signal-learn-user";
import { startAggregationOperationWorkflow } from "@als/workflows/start-aggregation-operation";
import { signalDataSourceCollection } from "@als/workflows/start-data-source-collection";
import { startDataSourceSampleWorkflow } from "@als/workflows/start-data-source-sample";
import { startEvaluateSessionWorkflow } from "@als/workflows/start-evaluate-session";
import { startGenerationRunWorkflow } from "@als/workflows/start-generation-run";
import { startInferSessionOutcomeWorkflow } from "@als/workflows/start-infer-session-outcome";
import { startPurgeOperationWorkflow } from "@als/workflows/start-purge-operation";
import { startRegenerateEvaluationsWorkflow } from "@als/workflows/start-regenerate-evaluations";
import { Client, Connection } from "@temporalio/client";
import { CoalescedSignals } from "./coalesced-signals.ts";
import type { Logger } from "./logger.ts";

/**
 * The composition root: the domain dependencies built from the settings (see createCoreDeps), and
 * the orchestrator of long-running work: the in-process reconciler in embedded mode, a Temporal
 * client in full mode (the worker runs the work).
 */
export async function composeService(settings: Settings, log: Logger) {
  const graph = await createCoreDeps(settings, log);
  const { deps } = graph;
  const mode = settings.storage.kind === "postgres" ? ("full" as const) : ("embedded" as const);
  let reconciler: Reconciler | undefined;
  let connection: Connection | undefined;
  let learningSignals: CoalescedSignals<LearningSignal> | undefined;
  if (settings.temporal === undefined) {
    reconciler = attachReconciler(deps, (error: unknown) => log.error("reconciler pass failed", { error: String(error) }));
    reconciler.poke();
  } else {
    const { address, namespace, taskQueue } = settings.temporal;
    connection = await Connection.connect({ address });
    const client = new Client({ connection, namespace });
    // What was asked is committed either way (the publish, the receipt, the run); a worker starting
    // up schedules what did not reach Temporal.
    const reporting = (what: string, schedule: (scope: Scope, id: string) => Promise<void>) => async (scope: Scope, id: string) => {
      try {
        await schedule(scope, id);
      } catch (error) {
        log.error(`could not ${what}`, { id, error: String(error) });
      }
    };
    learningSignals = learningSignalsTo(client, taskQueue, deps, log);
    void signalPendingLearning(deps, learningSignals, log);
    deps.scheduleAggregation = reporting("start the aggregation workflow", (scope, operationId) =>
      startAggregationOperationWorkflow(client, taskQueue, scope, operationId),
    );
    deps.scheduleGenerationRun = reporting("start the generation run workflow", (scope, runId) => startGenerationRunWorkflow(client, taskQueue, scope, runId));
    deps.schedulePurge = reporting("start the purge operation workflow", (scope, purgeId) => startPurgeOperationWorkflow(client, taskQueue, scope, purgeId));
    deps.scheduleEvaluation = reporting("start the session evaluation workflow", (scope, sessionId) =>
      startEvaluateSessionWorkflow(client, taskQueue, scope, sessionId),
    );
    deps.scheduleOutcomeInference = reporting("start or wake the outcome inference workflow", (scope, sessionId) =>
      startInferSessionOutcomeWorkflow(client, taskQueue, scope, sessionId),
    );
    deps.scheduleEvaluationJob = reporting("start the regenerate workflow", (scope, jobId) =>
      startRegenerateEvaluationsWorkflow(client, taskQueue, scope, jobId),
    );
    deps.scheduleSample = reporting("start the data-source sample workflow", (scope, sampleId) =>
      startDataSourceSampleWorkflow(client, taskQueue, scope, sampleId),
    );
    deps.scheduleCollection = reporting("start or signal the data-source collection workflow", (scope, streamId) =>
      signalDataSourceCollection(client, taskQueue, scope, streamId),
    );
  }
  return {
    deps,
    mode,
    reconciler,
    async close() {
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
 * CoalescedSignals), made `deps.scheduleLearning`: a signal-with-start costs Temporal several
 * milliseconds (tens under load), which the publish no longer waits for.
 */
export function learningSignalsTo(client: Client, taskQueue: string, deps: CoreDeps, log: Logger): CoalescedSignals<LearningSignal> {
  const signals = new CoalescedSignals<LearningSignal>({
    send: ({ scope, userId }) => signalLearnUser(client, taskQueue, scope, userId),
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
  deps.scheduleLearning = (scope, userId) => signals.request({ scope, userId });
  return signals;
}

/**
 * Signals every user with interactions no learning has covered: a process stopped with signals
 * still pending (killed, or Temporal down past the retries) leaves them for this start-up sweep.
 */
async function signalPendingLearning(deps: CoreDeps, signals: CoalescedSignals<LearningSignal>, log: Logger): Promise<void> {
  try {
    await schedulePendingLearning(deps, (scope, userId) => signals.request({ scope, userId }));
  } catch (error) {
    log.error("could not find the users whose learning is pending", { error: String(error) });
  }
}
