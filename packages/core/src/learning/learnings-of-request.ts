import { profiles, userPlaybooks, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

// Counting stops here: a window yields a handful of learnings, never thousands.
const COUNT_LIMIT = 10_000;

/** How many profiles and user playbooks learning attributed to a request (the request that closed their window). */
export async function countLearningsOfRequest(deps: CoreDeps, scope: Scope, requestId: string): Promise<{ profiles: number; user_playbooks: number }> {
  const [learnedProfiles, learnedPlaybooks] = await Promise.all([
    profiles.listProfiles(deps.db, scope, { generatedFromRequestId: requestId }, COUNT_LIMIT),
    userPlaybooks.listUserPlaybooks(deps.db, scope, { requestId }, COUNT_LIMIT),
  ]);
  return { profiles: learnedProfiles.length, user_playbooks: learnedPlaybooks.length };
}
