import { GetProfilesRequest, ProfilesResponse } from "@als/contract";
import { getProfiles as readProfiles, toProfile } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getProfiles = defineOperation({
  procedure: "profiles.get",
  method: "POST",
  path: "/api/get_profiles",
  summary: "A user's profiles, newest first (CURRENT unless status_filter says otherwise)",
  input: GetProfilesRequest,
  output: ProfilesResponse,
  async handle({ deps, scope }, input) {
    const found = await readProfiles(deps, scope, input);
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} profile(s)` };
  },
});
