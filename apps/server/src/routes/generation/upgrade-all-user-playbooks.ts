import { UpgradeAllUserPlaybooksRequest, UpgradeAllUserPlaybooksResponse } from "@als/contract";
import { upgradeAllUserPlaybooks as upgrade } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const upgradeAllUserPlaybooks = defineOperation({
  procedure: "generation.upgradeUserPlaybooks",
  method: "POST",
  path: "/api/upgrade_all_user_playbooks",
  summary: "Make PENDING user playbooks current: per user and agent version, CURRENT become ARCHIVED and the old ARCHIVED are deleted",
  input: UpgradeAllUserPlaybooksRequest,
  output: UpgradeAllUserPlaybooksResponse,
  async handle({ deps, scope }, input) {
    const counts = await upgrade(deps, scope, { agentVersion: input?.agent_version, playbookName: input?.playbook_name });
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
