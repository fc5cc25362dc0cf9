import { AgentPlaybooksResponse, SearchAgentPlaybooksRequest } from "@als/contract";
import { searchAgentPlaybooks as search, toAgentPlaybook } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const searchAgentPlaybooks = defineOperation({
  procedure: "agentPlaybooks.search",
  method: "POST",
  path: "/api/search_agent_playbooks",
  summary: "Search agent playbooks: vector, fts or hybrid (the default); CURRENT and PENDING unless filtered; source matches linked user playbooks",
  input: SearchAgentPlaybooksRequest,
  output: AgentPlaybooksResponse,
  async handle({ deps, scope }, input) {
    const found = await search(deps, scope, input);
    return { success: true, agent_playbooks: found.map(toAgentPlaybook), msg: `Found ${found.length} matching agent playbook(s)` };
  },
});
