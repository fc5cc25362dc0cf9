import { profileChangeLog, profiles, type RequestRecord, type Scope, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";

// Counting stops here: a window yields a handful of learnings, never thousands.
const COUNT_LIMIT = 10_000;

/** What learning did with a request's windows (the windows the request closed): learnings it created, and profiles it merged new detail into. */
export interface LearningsOfRequest {
  profiles: number;
  user_playbooks: number;
  profiles_merged: number;
}

/** How many profiles and user playbooks learning attributed to a request (the request that closed their window), and how many profiles it merged into. */
export async function countLearningsOfRequest(
  deps: CoreDeps,
  scope: Scope,
  request: Pick<RequestRecord, "request_id" | "user_id">,
): Promise<LearningsOfRequest> {
  const requestId = request.request_id;
  const [learnedProfiles, learnedPlaybooks, merged] = await Promise.all([
    profiles.listProfiles(deps.db, scope, { generatedFromRequestId: requestId }, COUNT_LIMIT),
    userPlaybooks.listUserPlaybooks(deps.db, scope, { requestId }, COUNT_LIMIT),
    profileChangeLog.countProfilesMergedByRequest(deps.db, scope, request.user_id, requestId),
  ]);
  return { profiles: learnedProfiles.length, user_playbooks: learnedPlaybooks.length, profiles_merged: merged };
}
