import { endpoints } from "@als/contract";
import { getAgentPlaybooks, toAgentPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.get, {
  async handle({ deps, scope }, input) {
    const found = await getAgentPlaybooks(deps, scope, input);
    return { success: true, agent_playbooks: found.map(toAgentPlaybook), msg: `Found ${found.length} agent playbook(s)` };
  },
});
