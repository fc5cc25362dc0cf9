import { endpoints } from "@als/contract";
import { searchAgentPlaybooks, toAgentPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.search, {
  async handle({ deps, scope }, input) {
    const found = await searchAgentPlaybooks(deps, scope, input);
    return { success: true, agent_playbooks: found.map(toAgentPlaybook), msg: `Found ${found.length} matching agent playbook(s)` };
  },
});
