import { endpoints } from "@als/contract";
import { toAgentPlaybook, toProfile, toUserPlaybook, unifiedSearch } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.search.unified, {
  async handle({ deps, scope, correlationId }, input) {
    const found = await unifiedSearch(deps, scope, input, correlationId);
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
