import { GetAllProfilesQuery, ProfilesResponse } from "@als/contract";
import { getAllProfiles as readAllProfiles, toProfile } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getAllProfiles = defineOperation({
  procedure: "profiles.getAll",
  method: "GET",
  path: "/api/get_all_profiles",
  summary: "Profiles of all users; filters apply before the limit",
  input: GetAllProfilesQuery,
  output: ProfilesResponse,
  async handle({ deps, scope }, input) {
    const found = await readAllProfiles(deps, scope, input);
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} profile(s)` };
  },
});
