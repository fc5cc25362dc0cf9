import { type PurgeOperationRecord, purgeOperations, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { subjectRefs } from "./subject-refs.ts";

/**
 * Starts the erasure of a user of the project, or returns the one this (user, request_id) already
 * started, finished or not. The operation's row is the subject write barrier: it is committed
 * before the caller is answered, after every write of the user already under way (see
 * findOrCreatePurge), and the orchestrator runs the deletes (see runPurgeStep).
 */
export async function eraseUser(
  deps: CoreDeps,
  scope: Scope,
  input: { userId: string; requestId: string; actorRef: string },
): Promise<{ operation: PurgeOperationRecord; created: boolean }> {
  const refs = await subjectRefs(deps, scope, input);
  const found = await deps.db.transaction((tx) =>
    purgeOperations.findOrCreatePurge(
      tx,
      scope,
      { purgeId: `purge_${crypto.randomUUID()}`, userId: input.userId, actorRef: input.actorRef, ...refs },
      deps.now(),
    ),
  );
  if (found.operation.subject_user_id !== null) await deps.orchestrator?.schedule("purge", scope, found.operation.purge_id);
  return found;
}
