import { LlmStallError } from "@als/ai";
import { AppError, type GradeOnDemandRequest, type GradeOnDemandResponse } from "@als/contract";
import { evaluations, type Scope } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { NO_PROVIDER_REASON } from "../learning/learning-step.ts";
import { toSuccessResult } from "./evaluation-results.ts";
import { judgeWholeSession, saveJudgement } from "./grade-session.ts";

/** The contract's cache of on-demand grades, per (session, agent_version). */
export const GRADE_ON_DEMAND_CACHE_SECONDS = 24 * 3600;

type GradeOnDemandResult = z.input<typeof GradeOnDemandResponse>;

/**
 * Grades one session now, with every judge (agent success, per learning, shadow), as the given agent
 * version. A grade of the same (session, agent_version) made on demand in the last 24 hours is
 * answered instead, cached true with its original result_id; two calls racing for the same key save
 * one grade. 404 for a session without a published request; 503 naming the LLM without a provider.
 */
export async function gradeOnDemand(deps: CoreDeps, scope: Scope, input: GradeOnDemandRequest): Promise<GradeOnDemandResult> {
  const since = () => deps.now() - GRADE_ON_DEMAND_CACHE_SECONDS;
  const cachedAnswer = async (): Promise<GradeOnDemandResult | undefined> => {
    const cached = await evaluations.findOnDemandResult(deps.db, scope, input.session_id, input.agent_version, since());
    return (
      cached && {
        success: true,
        session_id: input.session_id,
        result_id: cached.result_id,
        cached: true,
        skipped_reason: null,
        result: toSuccessResult(cached),
      }
    );
  };
  if (!(await evaluations.firstRequestOfSession(deps.db, scope, input.session_id))) {
    throw new AppError("not_found", `session ${input.session_id} has no published request: publish one before grading it`);
  }
  const cached = await cachedAnswer();
  if (cached) return cached;
  if (!deps.llm) throw new AppError("llm_unavailable", NO_PROVIDER_REASON, { component: "llm" });

  let judgement: Awaited<ReturnType<typeof judgeWholeSession>>;
  try {
    judgement = await judgeWholeSession(
      { ...deps, llm: deps.llm },
      scope,
      input.session_id,
      { success: true, learnings: true, shadow: true },
      input.agent_version,
    );
  } catch (error) {
    if (error instanceof LlmStallError) {
      throw new AppError("llm_unavailable", `the LLM provider refused our ${error.kind === "auth" ? "credentials" : "billing"}`, { component: "llm" });
    }
    throw error;
  }
  if (!judgement) {
    return {
      success: true,
      session_id: input.session_id,
      result_id: null,
      cached: false,
      skipped_reason: "the session has no interactions to grade",
      result: null,
    };
  }
  const saved = await deps.db.transaction(async (tx) => {
    await evaluations.lockOnDemandGrade(tx, scope, input.session_id, input.agent_version);
    const raced = await evaluations.findOnDemandResult(tx, scope, input.session_id, input.agent_version, since());
    if (raced) return { resultId: raced.result_id, cached: true };
    const resultId = await saveJudgement(tx, scope, judgement, { kind: "on_demand", evaluationName: input.evaluation_name }, deps.now());
    return { resultId: resultId!, cached: false };
  });
  const result = await evaluations.readSuccessResult(deps.db, scope, saved.resultId);
  return {
    success: true,
    session_id: input.session_id,
    result_id: saved.resultId,
    cached: saved.cached,
    skipped_reason: null,
    result: result ? toSuccessResult(result) : null,
  };
}
