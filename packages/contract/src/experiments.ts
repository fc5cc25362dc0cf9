import { z } from "zod";
import { UnixSeconds } from "./common.ts";

const ExperimentId = z.string().trim().min(1).max(128);

/**
 * A retrieval experiment of the project, running (ended_at null) or ended; exactly the peer
 * service's record (its client refuses other fields), so arm_split (get_config's) is not repeated.
 */
export const ExperimentRecord = z.object({
  experiment_id: z.string(),
  holdout_percentage: z.number().describe("Share of users in the holdout arm, in percent (100 × (1 − the configuration's arm_split))"),
  started_at: UnixSeconds,
  ended_at: UnixSeconds.nullable(),
});

export const ExperimentList = z.object({
  active_experiment: ExperimentRecord.nullable(),
  experiments: z.array(ExperimentRecord).describe("Every experiment of the project, newest first"),
});

export const NoExperimentInput = z.object({}).strict();

export const StartExperimentRequest = z
  .object({
    experiment_id: ExperimentId.describe("Never reused: an id that ran before is refused (409)"),
    holdout_percentage: z.number().gt(0).lt(100).describe("Share of users kept out of the treatment, in percent"),
  })
  .strict();

export const StopExperimentRequest = z.object({ experiment_id: ExperimentId }).strict();
export const ExperimentPath = z.object({ experiment_id: ExperimentId }).strict();

const Interval = z.tuple([z.number(), z.number()]);

export const ArmMetrics = z.object({
  arm: z.enum(["treatment", "holdout"]),
  assigned_user_count: z.number().int().describe("Users whose requests carried the experiment in this arm"),
  published_session_count: z.number().int(),
  evaluated_user_count: z.number().int(),
  evaluated_session_count: z.number().int().describe("Sessions with an outcome of success or failure (session_outcome)"),
  success_rate: z.number().nullable().describe("Successes among evaluated sessions, 0..1; null without any"),
  success_rate_ci_95: Interval.nullable().describe("Wilson score interval of success_rate"),
});

export const EXPERIMENT_VERDICTS = ["treatment_better", "treatment_worse", "no_significant_difference", "insufficient_data"] as const;

export const ExperimentResults = z.object({
  experiment: ExperimentRecord,
  treatment: ArmMetrics,
  holdout: ArmMetrics,
  success_rate_lift_percentage_points: z.number().nullable().describe("100 × (treatment − holdout success rate)"),
  relative_success_lift: z.number().nullable().describe("(treatment − holdout) / holdout; null when holdout's rate is 0 or unknown"),
  confidence_interval_95_percentage_points: Interval.nullable().describe("Newcombe's hybrid score interval of the lift"),
  evaluated_session_coverage: z.number().nullable().describe("Evaluated sessions among published ones, both arms"),
  significant: z.boolean().describe("The lift's 95% interval excludes 0"),
  verdict: z.enum(EXPERIMENT_VERDICTS),
});
