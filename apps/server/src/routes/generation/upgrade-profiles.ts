import { endpoints } from "@als/contract";
import { upgradeAllProfiles } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.upgradeProfiles, {
  async handle({ deps, scope }, input) {
    const counts = await upgradeAllProfiles(deps, scope, input?.user_id);
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
