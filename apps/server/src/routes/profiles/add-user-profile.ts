import { AddUserProfileRequest, AddUserProfileResponse } from "@als/contract";
import { addUserProfiles } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const addUserProfile = defineOperation({
  procedure: "profiles.add",
  method: "POST",
  path: "/api/add_user_profile",
  summary: "Add profiles (a UUIDv4 profile_id is generated when omitted; an existing profile_id is replaced)",
  input: AddUserProfileRequest,
  output: AddUserProfileResponse,
  async handle({ deps, scope }, input) {
    const stored = await addUserProfiles(deps, scope, input.user_profiles);
    return {
      success: true,
      message: `Added ${stored.length} profile(s)`,
      added_count: stored.length,
      profile_ids: stored.map((p) => p.profile_id),
    };
  },
});
