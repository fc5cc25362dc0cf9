import { ProfilesResponse, RerankUserProfilesRequest } from "@als/contract";
import { rerankUserProfiles as rerank, toProfile } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const rerankUserProfiles = defineOperation({
  procedure: "profiles.rerank",
  method: "POST",
  path: "/api/rerank_user_profiles",
  summary: "Order some of a user's profiles by a cross-encoder's relevance to a query (503 while no reranking model is installed)",
  input: RerankUserProfilesRequest,
  output: ProfilesResponse,
  async handle({ deps, scope }, input) {
    const ranked = await rerank(deps, scope, input);
    return { success: true, user_profiles: ranked.map(toProfile), msg: `Reranked ${ranked.length} profile(s)` };
  },
});
