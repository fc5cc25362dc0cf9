import { defineResource } from "../endpoint.ts";
import { UnifiedSearchRequest, UnifiedSearchResponse } from "../search.ts";

export const searchEndpoints = defineResource("search", {
  unified: {
    method: "POST",
    path: "/api/search",
    summary:
      "Search profiles (only with user_id), user playbooks and agent playbooks at once; session_id de-duplicates within the session; five-second deadline",
    input: UnifiedSearchRequest,
    output: UnifiedSearchResponse,
    errors: ["embedding_unavailable", "not_implemented", "llm_unavailable", "search_deadline", "overloaded"],
    rateClass: "search",
  },
});
