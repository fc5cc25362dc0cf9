import { profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

const isoOrNull = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());

/** How much a user has stored, across all statuses. */
export async function storageStats(deps: CoreDeps, scope: Scope, userId: string) {
  const counts = await profiles.countProfiles(deps.db, scope, userId);
  // User playbooks arrive with the playbooks issue; until then a user has none.
  const playbookCount = 0;
  return {
    profile_count: counts.profile_count,
    playbook_count: playbookCount,
    oldest_profile_modified: isoOrNull(counts.oldest_modified_timestamp),
    newest_profile_modified: isoOrNull(counts.newest_modified_timestamp),
  };
}
