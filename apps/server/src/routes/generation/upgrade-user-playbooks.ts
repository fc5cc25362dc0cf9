import { endpoints } from "@als/contract";
import { upgradeAllUserPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.upgradeUserPlaybooks, {
  async handle({ deps, scope }, input) {
    const counts = await upgradeAllUserPlaybooks(deps, scope, { agentVersion: input?.agent_version, playbookName: input?.playbook_name });
    return {
      success: true,
      message: `Upgraded the user playbooks of ${counts.upgradedUsers} user(s)`,
      upgraded_users: counts.upgradedUsers,
      user_playbooks_promoted: counts.promoted,
      user_playbooks_archived: counts.archived,
      user_playbooks_deleted: counts.deleted,
    };
  },
});
