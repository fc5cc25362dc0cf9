import { endpoints } from "@als/contract";
import { toAgentPlaybook, toProfile, toUserPlaybook, unifiedSearch } from "@als/core";
import { recordSearchEvidence } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.search.unified, {
  async handle({ deps, principal, scope, correlationId, timings }, input) {
    const found = await unifiedSearch(deps, scope, input, correlationId, timings);
    await timings.time("evidence", () =>
      recordSearchEvidence(deps, principal, scope, {
        route: endpoints.search.unified.procedure,
        userId: input.user_id ?? null,
        servedIds: [
          ...found.profiles.map((profile) => `profile:${profile.profile_id}`),
          ...found.userPlaybooks.map(({ record }) => `user_playbook:${record.user_playbook_id}`),
          ...found.agentPlaybooks.map((playbook) => `agent_playbook:${playbook.agent_playbook_id}`),
        ],
      }),
    );
    return {
      success: true,
      profiles: found.profiles.map(toProfile),
      user_playbooks: found.userPlaybooks.map(({ record, exposureReceipt }) => ({ ...toUserPlaybook(record), exposure_receipt: exposureReceipt })),
      agent_playbooks: found.agentPlaybooks.map(toAgentPlaybook),
      reformulated_query: found.reformulatedQuery,
      degradation: found.degradations.length > 0 ? { degraded: true, components: found.degradations } : null,
      experiment: found.experiment,
    };
  },
});
