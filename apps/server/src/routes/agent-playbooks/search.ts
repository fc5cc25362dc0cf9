import { endpoints } from "@als/contract";
import { admitSearch, searchAgentPlaybooks, toAgentPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.search, {
  async handle({ deps, scope, timings }, input) {
    // Under the process's search admission: 503 overloaded when it could not start in time.
    const found = await admitSearch(deps, (search) => searchAgentPlaybooks(deps, scope, input, search), { timings });
    return { success: true, agent_playbooks: found.map(toAgentPlaybook), msg: `Found ${found.length} matching agent playbook(s)` };
  },
});
