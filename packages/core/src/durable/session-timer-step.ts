import { type Llm, LlmStallError } from "@als/ai";
import { type Scope, type SessionTimerState, type SessionTimerTable, type Sql, sessionTimers } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { NO_PROVIDER_REASON } from "../learning/learning-step.ts";
import { crashAt } from "./crash-at.ts";

const RETRY_BASE_SECONDS = 5;
const RETRY_CAP_SECONDS = 300;

/**
 * What a session timer's step leaves for its orchestrator: `done` (the work saved, nothing waiting,
 * or no provider to judge with: the session waits for one), `sleep` until the session's delay or
 * retry is due (a publish may move it further: the step then sleeps again), or `busy` (another
 * worker holds it).
 */
export type SessionTimerOutcome = { next: "done" } | { next: "sleep"; until: number } | { next: "busy" };

/** A kind of work that waits on a per-session timer (evaluation, outcome inference). */
export interface SessionTimerWork<Claimed extends SessionTimerState, Result> {
  table: SessionTimerTable;
  /** The columns a claim returns: the `Claimed` row. */
  columns: string;
  /** Longer than the work takes; a worker that died holding a session frees it after this. */
  leaseSeconds: number;
  /** Where a crash test kills the process: the work done, not yet saved. */
  crashPoint: string;
  /** What the failure noted on a waiting session starts with. */
  failing: string;
  /** The work, outside any transaction (LLM calls). */
  perform(deps: CoreDeps & { llm: Llm }, scope: Scope, claimed: Claimed): Promise<Result>;
  /** Saves the result in the transaction that marks the session done. */
  save(tx: Sql, scope: Scope, claimed: Claimed, result: Result, now: number): Promise<void>;
}

/**
 * One idempotent step of a session timer: once the session's delay has passed, the work runs over
 * the session as it is then, and its result is saved together with the session's move to done. The
 * save is fenced by the session's lease and by its last activity: a publish meanwhile leaves the
 * session waiting for its new deadline, and nothing is saved. A provider's failure leaves it
 * waiting with the failure noted, retried with capped backoff; without a provider it waits until
 * one is configured, never dropped.
 */
export async function runSessionTimerStep<Claimed extends SessionTimerState, Result>(
  deps: CoreDeps,
  work: SessionTimerWork<Claimed, Result>,
  scope: Scope,
  sessionId: string,
  leaseToken: string,
): Promise<SessionTimerOutcome> {
  const now = deps.now();
  if (!deps.llm) {
    await sessionTimers.noteTimerWaiting(deps.db, work.table, scope, sessionId, NO_PROVIDER_REASON);
    return { next: "done" };
  }
  const claimed = await sessionTimers.claimDueTimer<Claimed>(deps.db, work.table, work.columns, scope, sessionId, {
    token: leaseToken,
    now,
    seconds: work.leaseSeconds,
  });
  if (!claimed) {
    const until = wakeAt(await sessionTimers.readTimer(deps.db, work.table, scope, sessionId));
    if (until === undefined) return { next: "done" };
    return until > now ? { next: "sleep", until } : { next: "busy" };
  }
  try {
    const result = await work.perform({ ...deps, llm: deps.llm }, scope, claimed);
    crashAt(deps, work.crashPoint);
    const saved = await deps.db
      .transaction(async (tx) => {
        if (!(await sessionTimers.markTimerDone(tx, work.table, scope, sessionId, leaseToken, claimed.last_activity_at, deps.now()))) throw new SessionMoved();
        await work.save(tx, scope, claimed, result, deps.now());
        return true;
      })
      .catch((error) => {
        if (error instanceof SessionMoved) return false;
        throw error;
      });
    if (saved) return { next: "done" };
    // Published to (or taken over) meanwhile: the session's new deadline decides.
    await sessionTimers.releaseTimer(deps.db, work.table, scope, sessionId, leaseToken, { failure: null, retryAt: null });
    const until = wakeAt(await sessionTimers.readTimer(deps.db, work.table, scope, sessionId));
    return until === undefined ? { next: "done" } : { next: "sleep", until: Math.max(until, deps.now()) };
  } catch (error) {
    const retryAt = deps.now() + Math.min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** Math.max(0, claimed.attempts - 1));
    const reason = error instanceof LlmStallError ? `the LLM provider refused our ${error.kind === "auth" ? "credentials" : "billing"}` : safeMessage(error);
    await sessionTimers.releaseTimer(deps.db, work.table, scope, sessionId, leaseToken, { failure: `${work.failing}, retrying: ${reason}`, retryAt });
    return { next: "sleep", until: retryAt };
  }
}

/** When a waiting session's timer next fires (its delay or its retry); none when it is not waiting. */
function wakeAt(state: SessionTimerState | undefined): number | undefined {
  return state?.status === "waiting" ? Math.max(state.due_at, state.retry_at ?? 0) : undefined;
}

/** The session's last activity moved after it was read: the result must not be saved. */
class SessionMoved extends Error {}

function safeMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
