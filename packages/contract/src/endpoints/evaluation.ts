import { defineResource } from "../endpoint.ts";
import {
  CancelRegenerateResponse,
  GetAgentSuccessEvaluationResultsRequest,
  GetAgentSuccessEvaluationResultsResponse,
  GetEvaluationOverviewRequest,
  GetEvaluationOverviewResponse,
  GetRetrievedLearningEvaluationResultsRequest,
  GetRetrievedLearningEvaluationResultsResponse,
  GradeOnDemandRequest,
  GradeOnDemandResponse,
  JobPath,
  RecentShadowComparisonsRequest,
  RecentShadowComparisonsResponse,
  RegenerateRequest,
  RegenerateStartResponse,
  RegenerateStatusResponse,
} from "../evaluation.ts";

export const evaluationEndpoints = defineResource("evaluation", {
  agentSuccessResults: {
    method: "POST",
    // Not in the contract: the path the peer service's client calls.
    path: "/api/get_agent_success_evaluation_results",
    summary:
      "Agent success verdicts: the current one of each sampled (or on-demand) session, newest first; sampled sessions are graded after the session inactivity delay, and wait (never dropped) while no LLM provider is configured",
    input: GetAgentSuccessEvaluationResultsRequest,
    output: GetAgentSuccessEvaluationResultsResponse,
  },
  retrievedLearningResults: {
    method: "POST",
    path: "/api/get_retrieved_learning_evaluation_results",
    summary:
      "Per-learning relevance and impact verdicts: one per (user, session, interaction, kind, learning), the latest evaluation of each session (not a history), newest responses first",
    input: GetRetrievedLearningEvaluationResultsRequest,
    output: GetRetrievedLearningEvaluationResultsResponse,
  },
  gradeOnDemand: {
    method: "POST",
    path: "/api/evaluations/grade_on_demand",
    summary:
      "Grade one session now (agent success, per-learning, shadow); cached 24 hours per (session, agent_version): a repeat answers cached true with the original result_id. 404 for a session never published, 503 without an LLM provider",
    input: GradeOnDemandRequest,
    output: GradeOnDemandResponse,
    errors: ["llm_unavailable"],
    // Up to three judge calls, each retried on a provider's transient failures.
    timeoutMs: 240_000,
  },
  overview: {
    method: "POST",
    path: "/api/get_evaluation_overview",
    summary:
      "The evaluation overview of a window beside the one before it: hero trend buckets (rates 0..1, ts in Unix seconds), context tiles, score distributions (current vs baseline bins), rule attribution, source-set metrics and comparison (a session belongs to the set of its first request's source), and the shadow win-rate trend (daily UTC, ascending, with window totals)",
    input: GetEvaluationOverviewRequest,
    output: GetEvaluationOverviewResponse,
  },
  recentShadowComparisons: {
    method: "GET",
    path: "/api/evaluations/shadow_comparisons/recent",
    summary:
      "The N most recent per-turn shadow comparison verdicts of the last 30 days, under the pinned shadow_comparison_judge_prompt_version only (verdicts of other versions excluded); [] when nothing matches",
    input: RecentShadowComparisonsRequest,
    output: RecentShadowComparisonsResponse,
  },
  regenerate: {
    method: "POST",
    path: "/api/evaluations/regenerate",
    summary:
      "Replay the judges over the sessions that started in a closed window [from_ts, to_ts), as a durable job: answers its job_id and how many sessions it grades (422 for a window not closed yet)",
    input: RegenerateRequest,
    output: RegenerateStartResponse,
  },
  regenerateStatus: {
    method: "GET",
    path: "/api/evaluations/regenerate/:job_id",
    summary: "A regenerate job's status: running, completed or error, its progress, and the sessions it could not grade (404 when unknown)",
    input: JobPath,
    output: RegenerateStatusResponse,
  },
  cancelRegenerate: {
    method: "DELETE",
    path: "/api/evaluations/regenerate/:job_id",
    summary:
      "Cancel a regenerate job: no session is graded after the one in progress, which is not saved; the sessions saved before stay (404 when unknown; a finished job answers how it finished)",
    input: JobPath,
    output: CancelRegenerateResponse,
  },
});
