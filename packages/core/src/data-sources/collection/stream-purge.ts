import type { PurgeOperationRecord, Scope } from "@als/db";
import { subjectData } from "@als/db";
import type { CoreDeps } from "../../deps.ts";
import { eraseUser } from "../../governance/erase-user.ts";
import { subjectRefs } from "../../governance/subject-refs.ts";
import { liveStream } from "../stream-drafts.ts";

/**
 * purge-preview under a stream: what erasing the user from the stream's project would remove (their
 * stored data, this project's data-source staging and samples naming them) and suppress (import
 * receipts, kept without the user); erases nothing. 404 for a stream that is not the project's.
 */
export async function previewStreamPurge(deps: CoreDeps, scope: Scope, input: { stream_id: string; user_id: string; request_id: string }) {
  await liveStream(deps, scope, input.stream_id);
  const { subjectRef } = await subjectRefs(deps, scope, { userId: input.user_id, requestId: input.request_id });
  return {
    stream_id: input.stream_id,
    subject_ref: subjectRef,
    scope: `the user's data in project ${scope.projectId}, with this project's data-source staging and samples naming them; receipts stay as suppressions without the user so reconnects and mapping edits do not import them again; other projects' records are untouched`,
    estimated_counts: await subjectData.estimateErasure(deps.db, scope, input.user_id),
    erases_nothing: true as const,
  };
}

/** purge-user under a stream: the governance erasure of the user in the stream's project (idempotent on user_id and request_id). */
export async function purgeUserThroughStream(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; user_id: string; request_id: string; actorRef: string },
): Promise<{ operation: PurgeOperationRecord; created: boolean }> {
  await liveStream(deps, scope, input.stream_id);
  return eraseUser(deps, scope, { userId: input.user_id, requestId: input.request_id, actorRef: input.actorRef });
}
