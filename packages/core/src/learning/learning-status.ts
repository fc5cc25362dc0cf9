import type { LearningStatus } from "@als/contract";
import { extractionRuns, learning, requests, type Scope, StorageUnavailableError } from "@als/db";
import { withinDeadline } from "../concurrency/deadline.ts";
import type { CoreDeps } from "../deps.ts";

export interface RequestLearningStatus {
  status: LearningStatus;
  reason: string | null;
}

const WAITING_FOR_WINDOW =
  "waiting for a window: extraction runs when stride_size new interactions have arrived, on force_extraction or the session's completion hint (session_finished, finalize_session), or when the session has been quiet past the inactivity deadline";

const WAITING_BEHIND_HELD_WINDOW =
  "waiting behind an earlier window held because it does not fit the input budget (input_budget_exceeded): see POST /api/learning/held_windows";

const WAITING_FOR_ANSWERS = "waiting for a person to answer the questions its window asked: see GET /api/pending_tool_calls";

/**
 * Where learning from a request stands: done once every extractor's cursor covers its last
 * interaction; processing while a step holds the user's lease; failed when an attempt that saw it
 * ended in a failure that retrying will not fix (the reason says what to do); pending otherwise.
 */
export async function learningStatusOf(deps: CoreDeps, scope: Scope, requestId: string): Promise<RequestLearningStatus> {
  const request = await requests.findRequest(deps.db, scope, requestId);
  if (!request) return { status: "not_tracked", reason: `no request '${requestId}' in this project` };
  if (request.evaluation_only) return { status: "not_tracked", reason: "evaluation-only requests are never extracted" };
  const waitingOn = (await learning.readCursors(deps.db, scope, request.user_id)).filter((cursor) => cursor.covered_seq < request.last_seq);
  if (waitingOn.length === 0) return { status: "done", reason: null };
  if (await learning.isUserLeased(deps.db, scope, request.user_id, deps.now())) return { status: "processing", reason: null };
  // A request after a held window is not failed: it waits for the operator's recovery of the window before it.
  const heldBefore = waitingOn.find((cursor) => cursor.held_through_seq !== null && request.first_seq > cursor.held_through_seq);
  if (heldBefore) return { status: "pending", reason: WAITING_BEHIND_HELD_WINDOW };
  const questions = await extractionRuns.openQuestionsOfUser(deps.db, scope, request.user_id);
  if (questions > 0) return { status: "pending", reason: `${WAITING_FOR_ANSWERS} (${questions} open)` };
  // A final failure is the verdict of the attempt that saw the request; a request published after
  // that attempt (one overriding a stall, say) waits for its own.
  const final = waitingOn.find((cursor) => cursor.failure_final && request.first_seq <= (cursor.failed_through_seq ?? Infinity));
  if (final) return { status: "failed", reason: final.failure };
  const failed = waitingOn.find((cursor) => cursor.failure !== null);
  if (!failed) return { status: "pending", reason: WAITING_FOR_WINDOW };
  return { status: "pending", reason: failed.failure_final ? `not tried yet; the attempt before it failed: ${failed.failure}` : failed.failure };
}

const POLL_START_MS = 10;
const POLL_MAX_MS = 250;

/**
 * How a wait for learning ended: `done`; `not_done` when the time ran out or learning can no longer
 * finish on its own (failed, not tracked); `unknown` when reading where learning stands failed (the
 * storage went away meanwhile), with why.
 */
export type LearningWait = { outcome: "done" } | { outcome: "not_done" } | { outcome: "unknown"; why: string };

/**
 * Waits until learning from the request is done, or can no longer finish on its own (failed), or
 * `timeoutMs` passes, each look bounded by the time left (a look stuck on the storage does not
 * stretch the wait). It never throws: a look that fails ends the wait as `unknown`, since the caller
 * (a publish that committed) must answer with its request id whatever the storage does now.
 */
export async function waitForLearning(deps: CoreDeps, scope: Scope, requestId: string, timeoutMs: number): Promise<LearningWait> {
  const deadline = performance.now() + timeoutMs;
  for (let pause = POLL_START_MS; ; pause = Math.min(POLL_MAX_MS, pause * 2)) {
    let status: LearningStatus | undefined;
    try {
      status = (await withinDeadline(learningStatusOf(deps, scope, requestId), deadline))?.status;
    } catch (error) {
      return { outcome: "unknown", why: error instanceof StorageUnavailableError ? error.message : "an unexpected error while reading it" };
    }
    if (status === "done") return { outcome: "done" };
    if (status === undefined || status === "failed" || status === "not_tracked") return { outcome: "not_done" };
    const left = deadline - performance.now();
    if (left <= 0) return { outcome: "not_done" };
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}
