import { DeleteAgentPlaybookRequest, SuccessMessageResponse } from "@als/contract";
import { deleteAgentPlaybook as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const deleteAgentPlaybook = defineOperation({
  procedure: "agentPlaybooks.delete",
  method: "DELETE",
  path: "/api/delete_agent_playbook",
  summary: "Delete one agent playbook (404 when unknown); its source user playbooks stay",
  input: DeleteAgentPlaybookRequest,
  output: SuccessMessageResponse,
  async handle({ deps, scope }, input) {
    await remove(deps, scope, input.agent_playbook_id);
    return { success: true, message: `Deleted agent playbook ${input.agent_playbook_id}` };
  },
});
