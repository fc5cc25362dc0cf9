import { AddAgentPlaybookRequest, AddAgentPlaybookResponse } from "@als/contract";
import { addAgentPlaybooks } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const addAgentPlaybook = defineOperation({
  procedure: "agentPlaybooks.add",
  method: "POST",
  path: "/api/add_agent_playbook",
  summary: "Add agent playbooks (PENDING approval unless given), optionally linked to their source user playbooks",
  input: AddAgentPlaybookRequest,
  output: AddAgentPlaybookResponse,
  async handle({ deps, scope }, input) {
    const stored = await addAgentPlaybooks(deps, scope, input.agent_playbooks);
    return {
      success: true,
      message: `Added ${stored.length} agent playbook(s)`,
      added_count: stored.length,
      agent_playbook_ids: stored.map((p) => p.agent_playbook_id),
    };
  },
});
