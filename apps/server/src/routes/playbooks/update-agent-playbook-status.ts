import { SuccessMessageResponse, UpdateAgentPlaybookStatusRequest } from "@als/contract";
import { updateAgentPlaybook } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const updateAgentPlaybookStatus = defineOperation({
  procedure: "agentPlaybooks.updateStatus",
  method: "PUT",
  path: "/api/update_agent_playbook_status",
  summary: "Approve, reject or return an agent playbook to PENDING (any letter case)",
  input: UpdateAgentPlaybookStatusRequest,
  output: SuccessMessageResponse,
  async handle({ deps, scope }, input) {
    await updateAgentPlaybook(deps, scope, input);
    return { success: true, message: `Agent playbook ${input.agent_playbook_id} is now ${input.playbook_status}` };
  },
});
