import { LlmStallError } from "@als/ai";
import { evaluations, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { crashAt } from "../durable/crash-at.ts";
import { NO_PROVIDER_REASON } from "../learning/learning-step.ts";
import { judgeWholeSession, saveJudgement } from "./grade-session.ts";

/** Longer than a session's judges take; a worker that died holding one frees it after this. */
export const EVALUATION_LEASE_SECONDS = 300;
const RETRY_BASE_SECONDS = 5;
const RETRY_CAP_SECONDS = 300;

/**
 * What an evaluation step leaves for its orchestrator: `done` (graded, nothing waiting, or no
 * provider to grade with: the session waits for one), `sleep` until the session's delay or retry is
 * due (a publish may move it further: the step then sleeps again), or `busy` (another worker holds it).
 */
export type EvaluationStepOutcome = { next: "done" } | { next: "sleep"; until: number } | { next: "busy" };

/**
 * One idempotent step of a sampled session's evaluation: once the session has been quiet for the
 * inactivity delay, the judges grade it as it is then, and its results are saved together with the
 * session's move to graded. The save is fenced by the session's lease and by its last activity: a
 * publish meanwhile leaves the session waiting for its new deadline, and nothing is saved. A
 * provider's failure leaves it waiting with the failure noted, retried with capped backoff; without
 * a provider it waits until one is configured, never dropped.
 */
export async function runEvaluationStep(
  deps: CoreDeps,
  scope: Scope,
  sessionId: string,
  leaseToken: string = crypto.randomUUID(),
): Promise<EvaluationStepOutcome> {
  const now = deps.now();
  if (!deps.llm) {
    await evaluations.noteSessionWaiting(deps.db, scope, sessionId, NO_PROVIDER_REASON);
    return { next: "done" };
  }
  const session = await evaluations.claimDueSession(deps.db, scope, sessionId, leaseToken, now, EVALUATION_LEASE_SECONDS);
  if (!session) {
    const stored = await evaluations.readEvaluationSession(deps.db, scope, sessionId);
    if (!stored || stored.status !== "waiting") return { next: "done" };
    const until = Math.max(stored.due_at, stored.retry_at ?? 0);
    return until > now ? { next: "sleep", until } : { next: "busy" };
  }
  try {
    const wanted = { success: session.success_sampled, learnings: session.learning_sampled, shadow: session.has_shadow };
    const judgement = await judgeWholeSession({ ...deps, llm: deps.llm }, scope, sessionId, wanted);
    crashAt(deps, "evaluation.before_commit");
    const saved = await deps.db
      .transaction(async (tx) => {
        if (!(await evaluations.markSessionGraded(tx, scope, sessionId, leaseToken, session.last_activity_at, deps.now()))) throw new SessionMoved();
        if (judgement) await saveJudgement(tx, scope, judgement, { kind: "sampled" }, deps.now());
        return true;
      })
      .catch((error) => {
        if (error instanceof SessionMoved) return false;
        throw error;
      });
    if (saved) return { next: "done" };
    // Published to (or taken over) meanwhile: the session's new deadline decides.
    await evaluations.releaseSession(deps.db, scope, sessionId, leaseToken, { failure: null, retryAt: null });
    const stored = await evaluations.readEvaluationSession(deps.db, scope, sessionId);
    return stored?.status === "waiting" ? { next: "sleep", until: Math.max(stored.due_at, deps.now()) } : { next: "done" };
  } catch (error) {
    const retryAt = deps.now() + Math.min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, session.attempts - 1));
    const reason = error instanceof LlmStallError ? `the LLM provider refused our ${error.kind === "auth" ? "credentials" : "billing"}` : safeMessage(error);
    await evaluations.releaseSession(deps.db, scope, sessionId, leaseToken, { failure: `grading failed, retrying: ${reason}`, retryAt });
    return { next: "sleep", until: retryAt };
  }
}

/** The session's last activity moved after it was read: its results must not be saved. */
class SessionMoved extends Error {}

function safeMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
