import { type Scope, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import type { UpgradeCounts } from "./upgrade-profiles.ts";

/**
 * Makes the PENDING user playbooks a rerun generated current, per user and agent version (every
 * agent version unless one is named; only the playbooks named `playbookName` when given), each group
 * in one transaction: old ARCHIVED deleted, CURRENT archived, PENDING made CURRENT. A group without
 * PENDING playbooks is left alone, so nothing is archived without a replacement.
 */
export async function upgradeAllUserPlaybooks(deps: CoreDeps, scope: Scope, filters: { agentVersion?: string; playbookName?: string }): Promise<UpgradeCounts> {
  const counts: UpgradeCounts = { upgradedUsers: 0, promoted: 0, archived: 0, deleted: 0 };
  const upgradedUsers = new Set<string>();
  for (const group of await userPlaybooks.findPendingUserPlaybookGroups(deps.db, scope, filters)) {
    const upgrade = await userPlaybooks.upgradeUserPlaybookGroup(deps.db, scope, { ...group, playbookName: filters.playbookName }, deps.now());
    if (upgrade.promoted.length === 0) continue;
    upgradedUsers.add(group.user_id);
    counts.promoted += upgrade.promoted.length;
    counts.archived += upgrade.archived.length;
    counts.deleted += upgrade.deleted.length;
  }
  counts.upgradedUsers = upgradedUsers.size;
  return counts;
}
