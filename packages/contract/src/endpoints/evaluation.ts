import { defineResource } from "../endpoint.ts";
import {
  GetAgentSuccessEvaluationResultsRequest,
  GetAgentSuccessEvaluationResultsResponse,
  GetRetrievedLearningEvaluationResultsRequest,
  GetRetrievedLearningEvaluationResultsResponse,
  GradeOnDemandRequest,
  GradeOnDemandResponse,
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
});
