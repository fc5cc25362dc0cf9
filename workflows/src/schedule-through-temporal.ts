import type { DurableKind, Orchestrator } from "@als/core";
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

/** Told when scheduling could not reach Temporal: what it tried (for a log line), the id, the error. */
export type ScheduleFailureReport = (what: string, id: string, error: unknown) => void;

type Schedule = (client: Client, taskQueue: string, scope: Scope, id: string) => Promise<void>;

/** What scheduling each kind does in Temporal, and what a log line says it tried. */
const SCHEDULES: Record<DurableKind, { what: string; schedule: Schedule }> = {
  learning: { what: "signal the learning workflow", schedule: signalLearnUser },
  aggregation: { what: "start the aggregation workflow", schedule: startAggregationOperationWorkflow },
  generationRun: { what: "start the generation run workflow", schedule: startGenerationRunWorkflow },
  purge: { what: "start the purge operation workflow", schedule: startPurgeOperationWorkflow },
  evaluation: { what: "start the session evaluation workflow", schedule: startEvaluateSessionWorkflow },
  outcomeInference: { what: "start or wake the outcome inference workflow", schedule: startInferSessionOutcomeWorkflow },
  evaluationJob: { what: "start the regenerate workflow", schedule: startRegenerateEvaluationsWorkflow },
  sample: { what: "start the data-source sample workflow", schedule: startDataSourceSampleWorkflow },
  collection: { what: "start or signal the data-source collection workflow", schedule: signalDataSourceCollection },
};

/**
 * The orchestrator port in full mode: scheduling a kind starts, or wakes, the workflow that runs
 * that kind of work. Full mode's API processes and workers both need it, since the domain code that
 * schedules work runs in both: a publish in the API, a trace import in a worker's collection step
 * (its users' learning, its sessions' evaluations). What is scheduled is committed before, so a
 * call that cannot reach Temporal reports it and returns; a worker starting up schedules what did
 * not arrive. Client code, kept out of index.ts (the workflow bundle).
 */
export function scheduleThroughTemporal(client: Client, taskQueue: string, report: ScheduleFailureReport): Orchestrator {
  return {
    async schedule(kind, scope, id) {
      const { what, schedule } = SCHEDULES[kind];
      try {
        await schedule(client, taskQueue, scope, id);
      } catch (error) {
        report(what, id, error);
      }
    },
  };
}
