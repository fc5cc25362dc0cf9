import { ProfilesResponse, SearchProfilesRequest } from "@als/contract";
import { searchProfiles as search, toProfile } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const searchProfiles = defineOperation({
  procedure: "profiles.search",
  method: "POST",
  path: "/api/search_profiles",
  summary: "Search a user's profiles: vector, fts or hybrid (reciprocal rank fusion, the default)",
  input: SearchProfilesRequest,
  output: ProfilesResponse,
  async handle({ deps, scope }, input) {
    const found = await search(deps, scope, input);
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} matching profile(s)` };
  },
});
