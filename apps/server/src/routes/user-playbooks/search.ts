import { endpoints } from "@als/contract";
import { admitSearch, searchUserPlaybooks, toUserPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.search, {
  async handle({ deps, scope }, input) {
    // Under the process's search admission: 503 overloaded when it could not start in time.
    const found = await admitSearch(deps, (admitted) => searchUserPlaybooks(admitted, scope, input));
    return { success: true, user_playbooks: found.map(toUserPlaybook), msg: `Found ${found.length} matching user playbook(s)` };
  },
});
