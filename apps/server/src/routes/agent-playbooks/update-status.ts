import { endpoints } from "@als/contract";
import { updateAgentPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.updateStatus, {
  async handle({ deps, scope }, input) {
    await updateAgentPlaybook(deps, scope, input);
    return { success: true, message: `Agent playbook ${input.agent_playbook_id} is now ${input.playbook_status}` };
  },
});
