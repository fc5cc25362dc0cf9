import { endpoints } from "@als/contract";
import { deleteAgentPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.delete, {
  async handle({ deps, scope }, input) {
    await deleteAgentPlaybook(deps, scope, input.agent_playbook_id);
    return { success: true, message: `Deleted agent playbook ${input.agent_playbook_id}` };
  },
});
