import { endpoints } from "@als/contract";
import { getUserPlaybooks, toUserPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.get, {
  async handle({ deps, scope }, input) {
    const found = await getUserPlaybooks(deps, scope, input);
    return { success: true, user_playbooks: found.map(toUserPlaybook), msg: `Found ${found.length} user playbook(s)` };
  },
});
