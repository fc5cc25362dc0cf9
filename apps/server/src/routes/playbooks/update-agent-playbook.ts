import { SuccessMessageResponse, UpdateAgentPlaybookRequest } from "@als/contract";
import { updateAgentPlaybook as update } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const updateAgentPlaybook = defineOperation({
  procedure: "agentPlaybooks.update",
  method: "PUT",
  path: "/api/update_agent_playbook",
  summary: "Change the name, content, trigger, rationale or approval status of an agent playbook",
  input: UpdateAgentPlaybookRequest,
  output: SuccessMessageResponse,
  async handle({ deps, scope }, input) {
    await update(deps, scope, input);
    return { success: true, message: `Updated agent playbook ${input.agent_playbook_id}` };
  },
});
