import { type RequestRecord, type Scope, StorageUnavailableError } from "@als/db";
import { withinDeadline } from "../concurrency/deadline.ts";
import type { CoreDeps } from "../deps.ts";
import { waitForLearning } from "./learning-status.ts";
import { countLearningsOfRequest, type LearningsOfRequest } from "./learnings-of-request.ts";

/** What a publish that waited for learning reports: done with what learning made, or deferred; `unknown` says why its state could not be read. */
export interface PublishLearning {
  status: "done" | "deferred";
  learned: LearningsOfRequest;
  /** Set when the storage failed while the publish waited: learning's state is not known yet. */
  unknown?: string;
}

/** The backstop of publish_interaction allows ten seconds past the wait; counting takes milliseconds. */
const COUNT_GRACE_MS = 2_000;

const NOTHING_LEARNED: LearningsOfRequest = { profiles: 0, user_playbooks: 0, profiles_merged: 0 };

/**
 * Waits up to `timeoutMs` for learning from a committed request, for publish_interaction's
 * wait_for_response. It never throws: the request is stored, so a failure now must not read as a
 * failed publish (a client would publish it again); it answers `deferred` with why the state is not
 * known, and the request id lets the caller look it up later (learning_status).
 */
export async function waitForPublishLearning(
  deps: CoreDeps,
  scope: Scope,
  request: Pick<RequestRecord, "request_id" | "user_id">,
  timeoutMs: number,
): Promise<PublishLearning> {
  const deadline = performance.now() + timeoutMs;
  const waited = await waitForLearning(deps, scope, request.request_id, timeoutMs);
  if (waited.outcome === "unknown") return { status: "deferred", learned: NOTHING_LEARNED, unknown: waited.why };
  if (waited.outcome === "not_done") return { status: "deferred", learned: NOTHING_LEARNED };
  try {
    // Counting gets what is left of the wait, and a moment more when learning finished just at its end.
    const learned = await withinDeadline(countLearningsOfRequest(deps, scope, request), Math.max(deadline, performance.now() + COUNT_GRACE_MS));
    if (!learned) return { status: "deferred", learned: NOTHING_LEARNED, unknown: "counting what learning made took past the wait" };
    return { status: "done", learned };
  } catch (error) {
    const why = error instanceof StorageUnavailableError ? error.message : "an unexpected error while counting what it learned";
    return { status: "deferred", learned: NOTHING_LEARNED, unknown: why };
  }
}
