import { UpgradeAllProfilesRequest, UpgradeAllProfilesResponse } from "@als/contract";
import { upgradeAllProfiles as upgrade } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const upgradeAllProfiles = defineOperation({
  procedure: "generation.upgradeProfiles",
  method: "POST",
  path: "/api/upgrade_all_profiles",
  summary: "Make PENDING profiles current: per user, CURRENT become ARCHIVED and the old ARCHIVED are deleted",
  input: UpgradeAllProfilesRequest,
  output: UpgradeAllProfilesResponse,
  async handle({ deps, scope }, input) {
    const counts = await upgrade(deps, scope, input?.user_id);
    return {
      success: true,
      message: `Upgraded the profiles of ${counts.upgradedUsers} user(s)`,
      upgraded_users: counts.upgradedUsers,
      profiles_promoted: counts.promoted,
      profiles_archived: counts.archived,
      profiles_deleted: counts.deleted,
    };
  },
});
