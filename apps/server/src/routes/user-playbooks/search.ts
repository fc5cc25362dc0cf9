import { endpoints } from "@als/contract";
import { admitSearch, searchUserPlaybooks, toUserPlaybook } from "@als/core";
import { recordSearchEvidence } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.search, {
  async handle({ deps, principal, scope, timings }, input) {
    // Under the process's search admission: 503 overloaded when it could not start in time.
    const found = await admitSearch(deps, (search) => searchUserPlaybooks(deps, scope, input, search), { timings });
    await timings.time("evidence", () =>
      recordSearchEvidence(deps, principal, scope, {
        route: endpoints.userPlaybooks.search.procedure,
        userId: input.user_id ?? null,
        servedIds: found.map((playbook) => `user_playbook:${playbook.user_playbook_id}`),
      }),
    );
    return { success: true, user_playbooks: found.map(toUserPlaybook), msg: `Found ${found.length} matching user playbook(s)` };
  },
});
