import { AppError, type EXPERIMENT_VERDICTS } from "@als/contract";
import { type ArmCounts, type ExperimentRecord, retrievalExperiments, type Scope } from "@als/db";
import { endRetrievalExperiment, startRetrievalExperiment } from "../config/retrieval-experiment.ts";
import type { CoreDeps } from "../deps.ts";
import { differenceInterval, type Interval, wilsonInterval } from "./proportion-interval.ts";

/** The wire form: the peer's holdout_percentage in place of our arm_split (the treatment share). */
function toRecord({ arm_split, ...row }: ExperimentRecord) {
  return { ...row, holdout_percentage: Math.round((1 - arm_split) * 1e6) / 1e4 };
}

export async function listExperiments(deps: CoreDeps, scope: Scope) {
  const experiments = (await retrievalExperiments.listExperiments(deps.db, scope)).map(toRecord);
  return { active_experiment: experiments.find((experiment) => experiment.ended_at === null) ?? null, experiments };
}

export async function getExperiment(deps: CoreDeps, scope: Scope, experimentId: string) {
  const found = await retrievalExperiments.findExperiment(deps.db, scope, experimentId);
  if (!found) throw AppError.notFound(`retrieval experiment '${experimentId}'`);
  return toRecord(found);
}

/** Starts an experiment (the configuration's retrieval_experiment and its row, together); 409 while another runs or for a used id. */
export async function startExperiment(deps: CoreDeps, scope: Scope, input: { experiment_id: string; holdout_percentage: number }) {
  const running = (await listExperiments(deps, scope)).active_experiment;
  if (running?.experiment_id === input.experiment_id) throw new AppError("conflict", `retrieval experiment ${input.experiment_id} is already running`);
  await startRetrievalExperiment(deps, scope, { experiment_id: input.experiment_id, arm_split: 1 - input.holdout_percentage / 100 });
  return listExperiments(deps, scope);
}

/** Stops the running experiment; 409 when the one named is not the one running. */
export async function stopExperiment(deps: CoreDeps, scope: Scope, input: { experiment_id: string }) {
  const running = (await listExperiments(deps, scope)).active_experiment;
  if (running?.experiment_id !== input.experiment_id) {
    throw new AppError("conflict", `retrieval experiment ${input.experiment_id} is not the running one${running ? ` (${running.experiment_id} is)` : ""}`);
  }
  await endRetrievalExperiment(deps, scope);
  return listExperiments(deps, scope);
}

const percentagePoints = (value: number) => Math.round(value * 1e6) / 1e4;

function armMetrics(arm: "treatment" | "holdout", counts: ArmCounts | undefined) {
  const graded = counts?.graded_sessions ?? 0;
  const rate = graded > 0 ? wilsonInterval(counts!.successes, graded) : null;
  return {
    metrics: {
      arm,
      assigned_user_count: counts?.users ?? 0,
      published_session_count: counts?.sessions ?? 0,
      evaluated_user_count: counts?.graded_users ?? 0,
      evaluated_session_count: graded,
      success_rate: rate?.estimate ?? null,
      success_rate_ci_95: rate ? ([rate.low, rate.high] as [number, number]) : null,
    },
    rate,
  };
}

function verdictOf(lift: Interval | null): (typeof EXPERIMENT_VERDICTS)[number] {
  if (!lift) return "insufficient_data";
  if (lift.low > 0) return "treatment_better";
  if (lift.high < 0) return "treatment_worse";
  return "no_significant_difference";
}

/**
 * The experiment's results from the sessions its requests carried (each in the arm of its earliest
 * such request) and their reported outcomes: per arm the success rate with its Wilson interval, and
 * the lift (treatment − holdout) with Newcombe's interval; significant when that excludes 0.
 */
export async function experimentResults(deps: CoreDeps, scope: Scope, experimentId: string) {
  const experiment = await getExperiment(deps, scope, experimentId);
  const counts = await retrievalExperiments.experimentArmCounts(deps.db, scope, experimentId);
  const treatment = armMetrics(
    "treatment",
    counts.find((row) => row.arm === "treatment"),
  );
  const holdout = armMetrics(
    "holdout",
    counts.find((row) => row.arm === "holdout"),
  );
  const lift = treatment.rate && holdout.rate ? differenceInterval(treatment.rate, holdout.rate) : null;
  const published = treatment.metrics.published_session_count + holdout.metrics.published_session_count;
  const evaluated = treatment.metrics.evaluated_session_count + holdout.metrics.evaluated_session_count;
  return {
    experiment,
    treatment: treatment.metrics,
    holdout: holdout.metrics,
    success_rate_lift_percentage_points: lift ? percentagePoints(lift.estimate) : null,
    relative_success_lift: lift && holdout.rate!.estimate > 0 ? lift.estimate / holdout.rate!.estimate : null,
    confidence_interval_95_percentage_points: lift ? ([percentagePoints(lift.low), percentagePoints(lift.high)] as [number, number]) : null,
    evaluated_session_coverage: published > 0 ? evaluated / published : null,
    significant: lift !== null && (lift.low > 0 || lift.high < 0),
    verdict: verdictOf(lift),
  };
}
