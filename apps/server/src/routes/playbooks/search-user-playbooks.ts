import { SearchUserPlaybooksRequest, UserPlaybooksResponse } from "@als/contract";
import { searchUserPlaybooks as search, toUserPlaybook } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const searchUserPlaybooks = defineOperation({
  procedure: "userPlaybooks.search",
  method: "POST",
  path: "/api/search_user_playbooks",
  summary: "Search user playbooks: vector, fts or hybrid (reciprocal rank fusion, the default); CURRENT and PENDING unless filtered",
  input: SearchUserPlaybooksRequest,
  output: UserPlaybooksResponse,
  async handle({ deps, scope }, input) {
    const found = await search(deps, scope, input);
    return { success: true, user_playbooks: found.map(toUserPlaybook), msg: `Found ${found.length} matching user playbook(s)` };
  },
});
