import { z } from "zod";
import { END_AFTER_START_RULE, END_BEFORE_START, endAfterStart, Source, TimeRange, UnixSeconds, UserId } from "./common.ts";
import { LearningKind } from "./interactions.ts";

// Evaluation: the judges' verdicts on sessions (agent success), on each learning a response was given
// (relevance and impact), and on shadow answers (per turn); the overview computed over them; grading
// on demand and regenerating over a closed window. The contract names these models; where it does not
// give their fields, they are the fields a dashboard of such a service reads, named as the peer
// service's clients name them.

const SessionId = z.string().trim().min(1, "must not be blank").max(255);
const AgentVersion = z.string().trim().min(1, "must not be blank").max(255);
const EvaluationName = z.string().trim().min(1, "must not be blank").max(255);

/** How the regular answer compares with the shadow answer over a session. */
export const REGULAR_VS_SHADOW = ["regular_is_better", "regular_is_slightly_better", "shadow_is_better", "shadow_is_slightly_better", "tied"] as const;

/** The judge's verdict on one session: did the agent succeed for the user? */
export const AgentSuccessEvaluationResult = z.object({
  result_id: z.number().int().describe("The service's id of this verdict; a regrade of the session gets a new one"),
  user_id: z.string().describe("The session's user (from its first request)"),
  session_id: z.string(),
  agent_version: z.string().describe("The agent version of the session's latest request, or the one grade_on_demand named"),
  source: z.string().describe("The source of the session's first request ('' for none): what source sets match"),
  evaluation_only: z.boolean().describe("The session was published with evaluation_only"),
  evaluation_name: z.string().nullable().describe("The name a grade_on_demand or regenerate call gave the evaluation"),
  origin: z
    .enum(["sampled", "on_demand", "regenerate"])
    .describe("sampled: graded after the session's inactivity delay; on_demand or regenerate: by those calls"),
  is_success: z.boolean(),
  success_score: z.number().min(0).max(1).describe("The judge's confidence that the session succeeded, 0..1 (score distributions bin it)"),
  failure_type: z.string().nullable().describe("A short category of the failure (null on success)"),
  failure_reason: z.string().nullable().describe("Why the judge found the session failed (null on success)"),
  number_of_correction_per_session: z.number().int().min(0).describe("User turns that corrected or redirected an earlier agent response"),
  user_turns_to_resolution: z.number().int().min(0).nullable().describe("User turns until the user's need was met; null when it never was"),
  is_escalated: z.boolean().describe("The session was handed to a person, or the user asked for one"),
  regular_vs_shadow: z.enum(REGULAR_VS_SHADOW).nullable().describe("When the session's turns carry shadow_content: which answers were better overall"),
  trajectory_through_request_id: z.string().nullable().describe("The last request the judge saw, in (created_at, request_id) order"),
  trajectory_interaction_count: z.number().int().min(0).describe("How many interactions the judge saw"),
  judge_prompt: z.string().describe("The versioned prompt that graded it, e.g. agent-success-evaluation@v1"),
  session_started_at: UnixSeconds.describe("The session's first request's time"),
  created_at: UnixSeconds.describe("When the verdict was written"),
});

export const GetAgentSuccessEvaluationResultsRequest = z
  .object({
    limit: z.number().int().min(1).max(1000).default(100),
    offset: z.number().int().min(0).default(0).describe("Results to skip, for paging"),
    agent_version: z.string().min(1).optional(),
    user_id: UserId.optional(),
    session_id: SessionId.optional(),
    source: Source.optional().describe("The session's first request's source; empty disables the filter"),
    is_success: z.boolean().optional(),
    ...TimeRange,
  })
  .strict()
  .refine(endAfterStart, END_BEFORE_START)
  .meta({ ...END_AFTER_START_RULE, description: `${END_AFTER_START_RULE.description} The time bounds (inclusive) apply to created_at.` });
export type GetAgentSuccessEvaluationResultsRequest = z.infer<typeof GetAgentSuccessEvaluationResultsRequest>;

export const GetAgentSuccessEvaluationResultsResponse = z.object({
  success: z.boolean(),
  agent_success_evaluation_results: z.array(AgentSuccessEvaluationResult).describe("The current verdict of each session, newest first"),
  pending_session_count: z
    .number()
    .int()
    .min(0)
    .describe("Sessions of the project sampled for grading and still waiting (their inactivity delay, or a provider)"),
  msg: z.string().nullable().describe("Why sampled sessions wait, when they cannot be graded (no LLM provider configured)"),
});

export const PLAYBOOK_DIAGNOSIS_CATEGORIES = ["content_defect", "application_failure", "external_failure", "no_issue", "unknown"] as const;
export const MAX_DIAGNOSIS_REASON_CHARS = 4000;
export const MAX_DIAGNOSIS_EVIDENCE = 20;

/**
 * Why a playbook did not help, bounded by the session's evidence: it explains a problem, it is not
 * replay evidence or proof of improvement. Evidence outside the session is discarded.
 */
export const PlaybookDiagnosis = z
  .object({
    category: z.enum(PLAYBOOK_DIAGNOSIS_CATEGORIES),
    reason: z.string().min(1).max(MAX_DIAGNOSIS_REASON_CHARS),
    evidence_interaction_ids: z.array(z.number().int()).max(MAX_DIAGNOSIS_EVIDENCE).default([]).describe("Interactions of the evaluated session only"),
  })
  .strict();
export type PlaybookDiagnosis = z.infer<typeof PlaybookDiagnosis>;

export const LEARNING_IMPACTS = ["positive", "negative", "neutral"] as const;

/**
 * The latest verdict on one learning given to one response: one row per (user_id, session_id,
 * interaction_id, kind, learning_id); the set is the session's latest evaluation, not a history.
 */
export const RetrievedLearningEvaluationResult = z.object({
  result_id: z.number().int(),
  user_id: z.string(),
  session_id: z.string(),
  agent_version: z.string(),
  interaction_id: z.number().int().describe("The response the learning was given to; the same learning on several responses is judged on each"),
  interaction_created_at: UnixSeconds,
  kind: LearningKind,
  learning_id: z.string(),
  cited: z.boolean().describe("The response cited the learning"),
  exposure_verified: z
    .boolean()
    .describe(
      "The served version is proven: the response carried a receipt this service issued for this session and user playbook (ID-only references are unverified)",
    ),
  is_relevant: z.boolean().nullable().describe("The learning applies to the response; null when the judge gave no verdict"),
  relevance_reason: z.string(),
  impact: z
    .enum(LEARNING_IMPACTS)
    .nullable()
    .describe("Whether the learning improved, harmed or did not change the response; null when the judge gave no verdict"),
  impact_reason: z.string(),
  diagnosis: PlaybookDiagnosis.nullable().describe("For a playbook whose impact was not positive: why"),
  created_at: UnixSeconds.describe("When the evaluation was written"),
});

export const GetRetrievedLearningEvaluationResultsRequest = z
  .object({
    user_id: UserId.optional(),
    session_id: SessionId.optional(),
    kind: LearningKind.optional(),
    learning_id: z.string().min(1).optional(),
    ...TimeRange,
    limit: z.number().int().min(1).max(1000).default(100),
  })
  .strict()
  .refine(endAfterStart, END_BEFORE_START)
  .meta({ ...END_AFTER_START_RULE, description: `${END_AFTER_START_RULE.description} The time bounds (inclusive) apply to the response's time.` });
export type GetRetrievedLearningEvaluationResultsRequest = z.infer<typeof GetRetrievedLearningEvaluationResultsRequest>;

export const GetRetrievedLearningEvaluationResultsResponse = z.object({
  success: z.boolean(),
  results: z.array(RetrievedLearningEvaluationResult).describe("Newest responses first"),
  msg: z.string().nullable(),
});

export const GradeOnDemandRequest = z
  .object({
    session_id: SessionId,
    agent_version: AgentVersion.describe("The agent version graded; the cache is per (session, agent_version)"),
    evaluation_name: EvaluationName.optional(),
  })
  .strict();
export type GradeOnDemandRequest = z.infer<typeof GradeOnDemandRequest>;

export const GradeOnDemandResponse = z.object({
  success: z.boolean(),
  session_id: z.string(),
  result_id: z.number().int().nullable().describe("The verdict's id; a cached answer names the original one"),
  cached: z.boolean().describe("true when the session was graded on demand for this agent_version in the last 24 hours"),
  skipped_reason: z.string().nullable().describe("Why nothing was graded (no interactions in the session)"),
  result: AgentSuccessEvaluationResult.nullable(),
});

export const RegenerateRequest = z
  .object({
    from_ts: UnixSeconds.describe("Window start (inclusive): sessions whose first request is at or after it"),
    to_ts: UnixSeconds.describe("Window end (exclusive); must not be in the future: the window is closed"),
    evaluation_name: EvaluationName.optional(),
  })
  .strict()
  .refine((value) => value.to_ts > value.from_ts, { message: "to_ts must be after from_ts", path: ["to_ts"] })
  .meta({ description: "to_ts must be after from_ts and not after now." });
export type RegenerateRequest = z.infer<typeof RegenerateRequest>;

export const RegenerateStartResponse = z.object({
  job_id: z.string(),
  total: z.number().int().min(0).describe("Sessions of the window the job grades"),
});

export const RegenerateFailure = z.object({ session_id: z.string(), reason: z.string() });

export const RegenerateStatusResponse = z.object({
  job_id: z.string(),
  status: z
    .enum(["running", "completed", "cancelled", "error"])
    .describe("running until every session is graded or failed; cancelled on request; error when the job itself could not go on"),
  total: z.number().int().min(0),
  completed: z.number().int().min(0),
  failed: z.number().int().min(0),
  failures: z.array(RegenerateFailure).describe("Sessions that could not be graded, with a safe reason"),
  error_code: z.string().nullable(),
  started_at: UnixSeconds,
  finished_at: UnixSeconds.nullable(),
});

export const CancelRegenerateResponse = z.object({
  job_id: z.string(),
  status: z
    .enum(["cancelled", "completed", "error"])
    .describe("The job's status after the request: cancelled, or how it had already finished (then nothing changed)"),
});

export const JobPath = z.object({ job_id: z.string().min(1).max(128) }).strict();

/** One point of the hero trend: the sessions that started in the bucket [ts, next ts). */
export const HeroBucket = z.object({
  ts: UnixSeconds.describe("The bucket's start, Unix seconds (UTC-aligned days or ISO weeks)"),
  regular_rate: z.number().min(0).max(1).nullable().describe("Successes among the bucket's graded sessions, 0..1; null without any"),
  shadow_rate: z.number().min(0).max(1).nullable().describe("Shadow turns judged at least as good as the regular answer, 0..1; null without verdicts"),
  regular_n: z.number().int().min(0),
  shadow_n: z.number().int().min(0),
  avg_corrections: z.number().min(0),
  escalation_rate: z.number().min(0).max(1),
});

export const HeroBlock = z.object({
  state: z
    .enum(["full", "early", "shadow_off", "empty"])
    .describe("empty: nothing graded in the window; early: fewer than 20 sessions; shadow_off: no shadow verdicts"),
  regular_success_rate: z.number().min(0).max(1).nullable(),
  shadow_success_rate: z.number().min(0).max(1).nullable(),
  delta: z.number().min(-1).max(1).nullable().describe("regular_success_rate − shadow_success_rate"),
  buckets: z.array(HeroBucket).describe("Ascending by ts; buckets without sessions are left out"),
});

const Tile = z.object({
  current: z.number().nullable().describe("This window's value; null without graded sessions"),
  baseline: z.number().nullable().describe("The same measure over the equally long window just before"),
  delta: z.number().nullable().describe("current − baseline"),
});

/** The window's headline measures, each beside the preceding window of the same length. */
export const ContextTile = z.object({
  sessions: z.object({ current: z.number().int(), baseline: z.number().int() }).describe("Graded sessions"),
  success_rate: Tile.describe("Successes among graded sessions, 0..1"),
  avg_corrections: Tile,
  avg_user_turns_to_resolution: Tile.describe("Over the sessions that were resolved"),
  escalation_rate: Tile.describe("0..1"),
});

/** success_score binned in fifths: labels[i] names current_bins[i] and baseline_bins[i]. */
export const ScoreDistribution = z.object({
  labels: z.array(z.string()),
  current_bins: z.array(z.number().int().min(0)),
  baseline_bins: z.array(z.number().int().min(0)),
});

/** A learning given to (or cited by) graded sessions of the window, and how those sessions ended. */
export const RuleAttributionRow = z.object({
  kind: LearningKind,
  learning_id: z.string(),
  sessions: z.number().int().min(0).describe("Graded sessions whose responses were given or cited the learning"),
  cited_sessions: z.number().int().min(0),
  successes_with: z.number().int().min(0),
  failures_with: z.number().int().min(0),
  net_sessions: z.number().int().describe("successes_with − failures_with"),
  success_rate: z.number().min(0).max(1),
});

/** A labelled cohort: the sessions whose first request's source is exactly `source` ('' meaning no source). */
export const EvaluationSourceSetRequest = z
  .object({
    label: z.string().trim().min(1).max(128),
    source: Source.describe("Matched exactly against the session's first request's source; '' selects sessions without a source"),
  })
  .strict();

export const SourceSetEvaluationMetrics = z.object({
  label: z.string(),
  source: z.string(),
  session_count: z.number().int().min(0),
  success_rate: z.number().min(0).max(1).nullable(),
  buckets: z.array(HeroBucket),
  context_tiles: ContextTile,
  score_distribution: ScoreDistribution,
});

export const SourceSetComparison = z.object({
  sets: z.array(SourceSetEvaluationMetrics).describe("In the order requested"),
  available_sources: z.array(z.string()).describe("Sources of the window's graded sessions, for choosing sets"),
  unmatched_session_count: z.number().int().min(0).describe("Graded sessions of the window in none of the sets"),
  success_rate_difference: z.number().min(-1).max(1).nullable().describe("With two or more sets: the first set's success rate − the second's"),
});

export const ShadowWinRateTrendPoint = z.object({
  date: z.string().describe("The UTC day, YYYY-MM-DD"),
  n: z.number().int().min(0),
  wins: z.number().int().min(0).describe("Turns where the regular answer (with the learnings) was judged better than the shadow answer"),
  losses: z.number().int().min(0),
  ties: z.number().int().min(0),
});

export const ShadowWinRateTrendWindowTotal = z.object({
  n: z.number().int().min(0),
  wins: z.number().int().min(0),
  losses: z.number().int().min(0),
  ties: z.number().int().min(0),
  win_rate: z.number().min(0).max(1).describe("wins / n; 0 when n is 0"),
  net_win: z.number().min(-1).max(1).describe("(wins − losses) / n; 0 when n is 0"),
});

export const ShadowWinRateTrend = z.object({
  daily: z.array(ShadowWinRateTrendPoint).describe("Daily UTC buckets, ascending; days without verdicts are left out"),
  window_total: ShadowWinRateTrendWindowTotal,
  judge_prompt_version: z.string().describe("The pinned shadow_comparison_judge_prompt_version: verdicts of other versions are excluded"),
});

export const GetEvaluationOverviewRequest = z
  .object({
    from_ts: UnixSeconds.describe("Window start, inclusive"),
    to_ts: UnixSeconds.describe("Window end, exclusive"),
    bucket: z.enum(["day", "week"]).default("week"),
    include_shadow: z.boolean().default(true),
    source_sets: z.array(EvaluationSourceSetRequest).max(10).default([]),
  })
  .strict()
  .refine((value) => value.to_ts > value.from_ts, { message: "to_ts must be after from_ts", path: ["to_ts"] })
  .refine((value) => value.to_ts - value.from_ts <= 366 * 86_400, { message: "the window may span at most 366 days", path: ["to_ts"] })
  .refine((value) => new Set(value.source_sets.map((set) => set.label)).size === value.source_sets.length, {
    message: "source set labels must be unique",
    path: ["source_sets"],
  })
  .refine((value) => new Set(value.source_sets.map((set) => set.source)).size === value.source_sets.length, {
    message: "a source may be in one source set only",
    path: ["source_sets"],
  })
  .meta({ description: "to_ts after from_ts, at most 366 days apart; source set labels and sources unique." });
export type GetEvaluationOverviewRequest = z.infer<typeof GetEvaluationOverviewRequest>;

export const GetEvaluationOverviewResponse = z.object({
  from_ts: UnixSeconds,
  to_ts: UnixSeconds,
  baseline_from_ts: UnixSeconds.describe("The baseline window is [baseline_from_ts, from_ts)"),
  hero: HeroBlock,
  context_tiles: ContextTile,
  score_distribution: ScoreDistribution,
  rule_attribution: z.array(RuleAttributionRow).describe("At most 50, most sessions first"),
  source_set_comparison: SourceSetComparison,
  shadow_win_rate_trend: ShadowWinRateTrend,
});

export const SHADOW_WINNERS = ["regular", "shadow", "tie"] as const;

/** The shadow judge's answer on one turn. */
export const ShadowComparisonOutput = z.object({
  winner: z.enum(SHADOW_WINNERS).describe("Which answer served the user better"),
  is_significantly_better: z.boolean(),
  comparison_reason: z.string().nullable(),
});

/** One turn's verdict, per interaction_id and judge_prompt_version. */
export const ShadowComparisonVerdict = z.object({
  verdict_id: z.number().int(),
  interaction_id: z.number().int(),
  session_id: z.string(),
  user_id: z.string(),
  agent_version: z.string(),
  output: ShadowComparisonOutput,
  judge_prompt_version: z.string(),
  created_at: UnixSeconds,
});

export const RecentShadowComparisonsRequest = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(50).describe("N: the most recent verdicts (30-day lookback)"),
    session_id: SessionId.optional(),
  })
  .strict();

export const RecentShadowComparisonsResponse = z.object({
  verdicts: z.array(ShadowComparisonVerdict).describe("Newest first; [] when nothing matches"),
  judge_prompt_version: z.string(),
});
