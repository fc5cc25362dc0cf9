import type {
  AgentSuccessEvaluationResult,
  GetAgentSuccessEvaluationResultsRequest,
  GetAgentSuccessEvaluationResultsResponse,
  GetRetrievedLearningEvaluationResultsRequest,
  GetRetrievedLearningEvaluationResultsResponse,
} from "@als/contract";
import { evaluations, type Scope, type SuccessResultRecord } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { NO_PROVIDER_REASON } from "../learning/learning-step.ts";

/** A stored verdict as the contract sends it. */
export function toSuccessResult(row: SuccessResultRecord): z.input<typeof AgentSuccessEvaluationResult> {
  return { ...row, regular_vs_shadow: row.regular_vs_shadow as z.input<typeof AgentSuccessEvaluationResult>["regular_vs_shadow"] };
}

/** Why sampled sessions are not graded, when they cannot be: said plainly beside the results. */
async function waitingMessage(deps: CoreDeps, scope: Scope): Promise<{ pending: number; msg: string | null }> {
  const pending = await evaluations.countWaitingSessions(deps.db, scope);
  const msg = deps.llm ? null : `${pending} sampled session(s) wait for grading and are kept until a provider is configured: ${NO_PROVIDER_REASON}`;
  return { pending, msg };
}

/** The current agent success verdict of each session, newest first, with how many sampled sessions still wait. */
export async function listAgentSuccessResults(
  deps: CoreDeps,
  scope: Scope,
  input: GetAgentSuccessEvaluationResultsRequest,
): Promise<z.input<typeof GetAgentSuccessEvaluationResultsResponse>> {
  const rows = await evaluations.listSuccessResults(
    deps.db,
    scope,
    {
      agentVersion: input.agent_version,
      userId: input.user_id,
      sessionId: input.session_id,
      source: input.source,
      isSuccess: input.is_success,
      startTime: input.start_time,
      endTime: input.end_time,
    },
    input.limit,
    input.offset,
  );
  const { pending, msg } = await waitingMessage(deps, scope);
  return { success: true, agent_success_evaluation_results: rows.map(toSuccessResult), pending_session_count: pending, msg };
}

/** The latest per-learning verdicts, newest responses first. */
export async function listRetrievedLearningResults(
  deps: CoreDeps,
  scope: Scope,
  input: GetRetrievedLearningEvaluationResultsRequest,
): Promise<z.input<typeof GetRetrievedLearningEvaluationResultsResponse>> {
  const rows = await evaluations.listLearningResults(
    deps.db,
    scope,
    {
      userId: input.user_id,
      sessionId: input.session_id,
      kind: input.kind,
      learningId: input.learning_id,
      startTime: input.start_time,
      endTime: input.end_time,
    },
    input.limit,
  );
  const { msg } = await waitingMessage(deps, scope);
  return { success: true, results: rows, msg };
}
