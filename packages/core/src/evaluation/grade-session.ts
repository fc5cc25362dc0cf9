import type { Llm } from "@als/ai";
import { evaluations, type InteractionRecord, type LearningResultInsert, learning, type Scope, type ShadowVerdictInsert, type Sql } from "@als/db";
import { readProjectConfigNow } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { judgeLearnings, judgeShadowTurns, judgeSuccess, judgeTranscript, type StageUsage, type SuccessVerdict } from "./judge-session.ts";

/** Which judges to run over a session. */
export interface Wanted {
  success: boolean;
  learnings: boolean;
  shadow: boolean;
}

/** What the judges made of a session, before it is saved. */
export interface SessionJudgement {
  sessionId: string;
  userId: string;
  source: string;
  agentVersion: string;
  evaluationOnly: boolean;
  sessionStartedAt: number;
  throughRequestId: string;
  turns: readonly InteractionRecord[];
  success: { verdict: SuccessVerdict; prompt: string; model: string } | null;
  learnings: LearningResultInsert[] | null;
  shadow: ShadowVerdictInsert[] | null;
  usage: StageUsage[];
}

/**
 * Runs the wanted judges over the session as it is now (its user, source and start from its first
 * request; its agent version from its latest, unless `agentVersion` names one). Null when the
 * session has no interaction left to judge. Saves nothing: see saveJudgement.
 */
export async function judgeWholeSession(
  deps: CoreDeps & { llm: Llm },
  scope: Scope,
  sessionId: string,
  wanted: Wanted,
  agentVersion?: string,
): Promise<SessionJudgement | null> {
  const requests = await evaluations.sessionRequestsInOrder(deps.db, scope, sessionId);
  const turns = await evaluations.sessionInteractionsInOrder(deps.db, scope, sessionId);
  const first = requests[0];
  const last = requests.at(-1);
  if (first === undefined || last === undefined || turns.length === 0) return null;
  const config = await readProjectConfigNow(deps, scope);
  const transcript = judgeTranscript(turns);
  const version = agentVersion ?? last.agent_version;
  const usage: StageUsage[] = [];
  let success: SessionJudgement["success"] = null;
  if (wanted.success) {
    const judged = await judgeSuccess(deps.llm, config, transcript);
    success = { verdict: judged.verdict, prompt: judged.prompt, model: judged.usage.model };
    usage.push(judged.usage);
  }
  let learnings: LearningResultInsert[] | null = null;
  if (wanted.learnings) {
    const judged = await judgeLearnings(deps, scope, { userId: first.user_id, agentVersion: version, turns, transcript });
    learnings = judged.rows;
    if (judged.usage) usage.push(judged.usage);
  }
  let shadow: ShadowVerdictInsert[] | null = null;
  if (wanted.shadow) {
    const judged = await judgeShadowTurns(deps.llm, config, { turns, transcript });
    if (judged) {
      const turnOf = new Map(turns.map((turn) => [turn.interaction_id, turn]));
      shadow = judged.verdicts.map((verdict) => ({
        user_id: first.user_id,
        session_id: sessionId,
        interaction_id: verdict.interaction_id,
        agent_version: version,
        judge_prompt_version: judged.version,
        winner: verdict.winner,
        is_significantly_better: verdict.is_significantly_better,
        comparison_reason: verdict.comparison_reason,
        interaction_created_at: turnOf.get(verdict.interaction_id)!.created_at,
      }));
      if (judged.usage) usage.push(judged.usage);
    }
  }
  return {
    sessionId,
    userId: first.user_id,
    source: first.source,
    agentVersion: version,
    evaluationOnly: first.evaluation_only,
    sessionStartedAt: first.created_at,
    throughRequestId: last.request_id,
    turns,
    success,
    learnings,
    shadow,
    usage,
  };
}

/**
 * Saves a judgement in the caller's transaction: the session's verdict as its current one, its
 * per-learning set in place of the last, its turns' shadow verdicts, and the tokens and cost of each
 * judge's call (stage by stage, on the session's latest request). Returns the verdict's id.
 */
export async function saveJudgement(
  tx: Sql,
  scope: Scope,
  judgement: SessionJudgement,
  origin: { kind: "sampled" | "on_demand" | "regenerate"; evaluationName?: string | undefined },
  now: number,
): Promise<number | null> {
  let resultId: number | null = null;
  if (judgement.success) {
    const refs = (pick: (turn: InteractionRecord) => { kind: string; learning_id: string }[]) => [
      ...new Set(judgement.turns.flatMap((turn) => pick(turn).map((learned) => `${learned.kind}:${learned.learning_id}`))),
    ];
    const { verdict } = judgement.success;
    resultId = await evaluations.insertSuccessResult(
      tx,
      scope,
      {
        session_id: judgement.sessionId,
        user_id: judgement.userId,
        source: judgement.source,
        agent_version: judgement.agentVersion,
        evaluation_only: judgement.evaluationOnly,
        evaluation_name: origin.evaluationName ?? null,
        origin: origin.kind,
        is_success: verdict.is_success,
        success_score: verdict.success_score,
        failure_type: verdict.is_success ? null : verdict.failure_type,
        failure_reason: verdict.is_success ? null : verdict.failure_reason,
        number_of_correction_per_session: verdict.number_of_correction_per_session,
        user_turns_to_resolution: verdict.user_turns_to_resolution,
        is_escalated: verdict.is_escalated,
        regular_vs_shadow: verdict.regular_vs_shadow,
        retrieved_learning_refs: refs((turn) => turn.retrieved_learnings),
        cited_learning_refs: refs((turn) => turn.citations),
        trajectory_through_request_id: judgement.throughRequestId,
        trajectory_interaction_count: judgement.turns.length,
        judge_prompt: judgement.success.prompt,
        model: judgement.success.model,
        session_started_at: judgement.sessionStartedAt,
      },
      now,
    );
  }
  if (judgement.learnings) await evaluations.replaceLearningResults(tx, scope, judgement.sessionId, judgement.learnings, now);
  if (judgement.shadow) await evaluations.upsertShadowVerdicts(tx, scope, judgement.shadow, now);
  await learning.recordLlmUsage(
    tx,
    scope,
    judgement.usage.map((usage) => ({ ...usage, userId: judgement.userId, requestId: judgement.throughRequestId })),
    now,
  );
  return resultId;
}
