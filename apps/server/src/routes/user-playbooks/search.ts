import { endpoints } from "@als/contract";
import { searchUserPlaybooks, toUserPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.search, {
  async handle({ deps, scope }, input) {
    const found = await searchUserPlaybooks(deps, scope, input);
    return { success: true, user_playbooks: found.map(toUserPlaybook), msg: `Found ${found.length} matching user playbook(s)` };
  },
});
