import { InteractionsResponse, SearchInteractionsRequest } from "@als/contract";
import { searchInteractions as search, toInteraction } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const searchInteractions = defineOperation({
  procedure: "interactions.search",
  method: "POST",
  path: "/api/search_interactions",
  summary: "Search a user's interactions (or their most recent most_recent_k) by meaning, words or both",
  input: SearchInteractionsRequest,
  output: InteractionsResponse,
  async handle({ deps, scope }, input) {
    const found = await search(deps, scope, input);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
