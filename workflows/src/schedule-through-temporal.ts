import type { CoreDeps } from "@als/core";
import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import { signalLearnUser } from "./signal-learn-user.ts";
import { startAggregationOperationWorkflow } from "./start-aggregation-operation.ts";
import { signalDataSourceCollection } from "./start-data-source-collection.ts";
import { startDataSourceSampleWorkflow } from "./start-data-source-sample.ts";
import { startEvaluateSessionWorkflow } from "./start-evaluate-session.ts";
import { startGenerationRunWorkflow } from "./start-generation-run.ts";
import { startInferSessionOutcomeWorkflow } from "./start-infer-session-outcome.ts";
import { startPurgeOperationWorkflow } from "./start-purge-operation.ts";
import { startRegenerateEvaluationsWorkflow } from "./start-regenerate-evaluations.ts";

/** Told when a hook could not reach Temporal: what it tried (for a log line), the id, the error. */
export type ScheduleFailureReport = (what: string, id: string, error: unknown) => void;

/**
 * Points every schedule hook of `deps` at Temporal: each starts, or wakes, the workflow that runs
 * that kind of work. Full mode's API processes and workers both need them, since the domain code that
 * schedules work runs in both: a publish in the API, a trace import in a worker's collection step
 * (its users' learning, its sessions' evaluations). What a hook schedules is committed before it is
 * called, so a hook that cannot reach Temporal reports it and returns; a worker starting up schedules
 * what did not arrive. Client code, kept out of index.ts (the workflow bundle).
 */
export function scheduleThroughTemporal(deps: CoreDeps, client: Client, taskQueue: string, report: ScheduleFailureReport): void {
  const reporting =
    (what: string, schedule: (client: Client, taskQueue: string, scope: Scope, id: string) => Promise<void>) => async (scope: Scope, id: string) => {
      try {
        await schedule(client, taskQueue, scope, id);
      } catch (error) {
        report(what, id, error);
      }
    };
  deps.scheduleLearning = reporting("signal the learning workflow", signalLearnUser);
  deps.scheduleAggregation = reporting("start the aggregation workflow", startAggregationOperationWorkflow);
  deps.scheduleGenerationRun = reporting("start the generation run workflow", startGenerationRunWorkflow);
  deps.schedulePurge = reporting("start the purge operation workflow", startPurgeOperationWorkflow);
  deps.scheduleEvaluation = reporting("start the session evaluation workflow", startEvaluateSessionWorkflow);
  deps.scheduleOutcomeInference = reporting("start or wake the outcome inference workflow", startInferSessionOutcomeWorkflow);
  deps.scheduleEvaluationJob = reporting("start the regenerate workflow", startRegenerateEvaluationsWorkflow);
  deps.scheduleSample = reporting("start the data-source sample workflow", startDataSourceSampleWorkflow);
  deps.scheduleCollection = reporting("start or signal the data-source collection workflow", signalDataSourceCollection);
}
