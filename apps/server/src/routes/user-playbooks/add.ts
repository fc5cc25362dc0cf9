import { endpoints } from "@als/contract";
import { addUserPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.add, {
  async handle({ deps, scope }, input) {
    const stored = await addUserPlaybooks(deps, scope, input.user_playbooks);
    return {
      success: true,
      message: `Added ${stored.length} user playbook(s)`,
      added_count: stored.length,
      user_playbook_ids: stored.map((p) => p.user_playbook_id),
      warnings: input.warnings,
    };
  },
});
