import { type EvaluationSessionRecord, evaluations, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { runSessionTimerStep, type SessionTimerOutcome, type SessionTimerWork } from "../durable/session-timer-step.ts";
import { judgeWholeSession, type SessionJudgement, saveJudgement } from "./grade-session.ts";

/** Longer than a session's judges take; a worker that died holding one frees it after this. */
export const EVALUATION_LEASE_SECONDS = 300;

/** What an evaluation step leaves for its orchestrator (see SessionTimerOutcome). */
export type EvaluationStepOutcome = SessionTimerOutcome;

/** A sampled session's grading: the wanted judges over the whole session, saved as its current results. */
const GRADING: SessionTimerWork<EvaluationSessionRecord, SessionJudgement | null> = {
  table: "evaluation_sessions",
  columns: evaluations.EVALUATION_SESSION_COLUMNS,
  leaseSeconds: EVALUATION_LEASE_SECONDS,
  crashPoint: "evaluation.before_commit",
  failing: "grading failed",
  perform: (deps, scope, session) =>
    judgeWholeSession(deps, scope, session.session_id, { success: session.success_sampled, learnings: session.learning_sampled, shadow: session.has_shadow }),
  async save(tx, scope, _session, judgement, now) {
    if (judgement) await saveJudgement(tx, scope, judgement, { kind: "sampled" }, now);
  },
};

/**
 * One idempotent step of a sampled session's evaluation: once the session has been quiet for the
 * inactivity delay, the judges grade it as it is then, and its results are saved together with the
 * session's move to graded (see runSessionTimerStep for the fencing, retries and the wait for a provider).
 */
export function runEvaluationStep(deps: CoreDeps, scope: Scope, sessionId: string, leaseToken: string = crypto.randomUUID()): Promise<EvaluationStepOutcome> {
  return runSessionTimerStep(deps, GRADING, scope, sessionId, leaseToken);
}
