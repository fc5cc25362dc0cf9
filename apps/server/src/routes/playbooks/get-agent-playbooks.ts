import { AgentPlaybooksResponse, GetAgentPlaybooksRequest } from "@als/contract";
import { getAgentPlaybooks as readAgentPlaybooks, toAgentPlaybook } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getAgentPlaybooks = defineOperation({
  procedure: "agentPlaybooks.get",
  method: "POST",
  path: "/api/get_agent_playbooks",
  summary: "Agent playbooks, APPROVED ones unless playbook_status_filter says otherwise, newest first",
  input: GetAgentPlaybooksRequest,
  output: AgentPlaybooksResponse,
  async handle({ deps, scope }, input) {
    const found = await readAgentPlaybooks(deps, scope, input);
    return { success: true, agent_playbooks: found.map(toAgentPlaybook), msg: `Found ${found.length} agent playbook(s)` };
  },
});
