import { attachReconciler, createCoreDeps, type Reconciler, type Settings } from "@als/core";
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
    deps.scheduleLearning = reporting("signal the learning workflow", (scope, userId) => signalLearnUser(client, taskQueue, scope, userId));
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
      await connection?.close();
      await graph.close();
    },
  };
}
