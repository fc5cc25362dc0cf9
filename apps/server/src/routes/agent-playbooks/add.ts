import { endpoints } from "@als/contract";
import { addAgentPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.add, {
  async handle({ deps, scope }, input) {
    const stored = await addAgentPlaybooks(deps, scope, input.agent_playbooks);
    return {
      success: true,
      message: `Added ${stored.length} agent playbook(s)`,
      added_count: stored.length,
      agent_playbook_ids: stored.map((p) => p.agent_playbook_id),
      warnings: input.warnings,
    };
  },
});
