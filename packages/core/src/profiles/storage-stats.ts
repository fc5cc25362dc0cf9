import { profiles, type Scope, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { isoTimeOrNull } from "../iso-time.ts";

/** How much a user has stored, across all statuses. */
export async function storageStats(deps: CoreDeps, scope: Scope, userId: string) {
  const [counts, playbookCount] = await Promise.all([profiles.countProfiles(deps.db, scope, userId), userPlaybooks.countUserPlaybooks(deps.db, scope, userId)]);
  return {
    profile_count: counts.profile_count,
    playbook_count: playbookCount,
    oldest_profile_modified: isoTimeOrNull(counts.oldest_modified_timestamp),
    newest_profile_modified: isoTimeOrNull(counts.newest_modified_timestamp),
  };
}
