import { UnifiedSearchRequest, UnifiedSearchResponse } from "@als/contract";
import { toAgentPlaybook, toProfile, toUserPlaybook, unifiedSearch as search } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const unifiedSearch = defineOperation({
  procedure: "search.unified",
  method: "POST",
  path: "/api/search",
  summary:
    "Search profiles (only with user_id), user playbooks and agent playbooks at once; session_id de-duplicates within the session; five-second deadline",
  input: UnifiedSearchRequest,
  output: UnifiedSearchResponse,
  async handle({ deps, scope, correlationId }, input) {
    const found = await search(deps, scope, input, correlationId);
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
