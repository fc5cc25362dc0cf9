import { profileChangeLog, profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

export interface UpgradeCounts {
  upgradedUsers: number;
  promoted: number;
  archived: number;
  deleted: number;
}

/**
 * Makes the PENDING profiles a rerun generated current: per user (the named one, or every user with
 * PENDING profiles), in one transaction, the old ARCHIVED profiles are deleted, the CURRENT ones
 * archived and the PENDING ones made CURRENT, and the change goes to the profile change log. A user
 * without PENDING profiles is left alone: archiving their profiles with no replacement would only
 * empty them.
 */
export async function upgradeAllProfiles(deps: CoreDeps, scope: Scope, userId?: string): Promise<UpgradeCounts> {
  const counts: UpgradeCounts = { upgradedUsers: 0, promoted: 0, archived: 0, deleted: 0 };
  for (const user of await profiles.findUsersWithPendingProfiles(deps.db, scope, userId)) {
    const upgrade = await deps.db.transaction(async (tx) => {
      const now = deps.now();
      const moved = await profiles.upgradeProfilesOfUser(tx, scope, user, now);
      // The deleted ARCHIVED profiles left the user's current ones at an earlier upgrade, logged then.
      if (moved.promoted.length > 0) {
        await profileChangeLog.recordProfileChanges(
          tx,
          scope,
          [{ user_id: user, request_id: null, added_profiles: moved.promoted, removed_profiles: moved.archived }],
          now,
        );
      }
      return moved;
    });
    // Nothing promoted: another upgrade got there first.
    if (upgrade.promoted.length === 0) continue;
    counts.upgradedUsers += 1;
    counts.promoted += upgrade.promoted.length;
    counts.archived += upgrade.archived.length;
    counts.deleted += upgrade.deleted.length;
  }
  return counts;
}
