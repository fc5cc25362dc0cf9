import { endpoints } from "@als/contract";
import { addUserProfiles } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.add, {
  async handle({ deps, scope }, input) {
    const stored = await addUserProfiles(deps, scope, input.user_profiles);
    return {
      success: true,
      message: `Added ${stored.length} profile(s)`,
      added_count: stored.length,
      profile_ids: stored.map((p) => p.profile_id),
      warnings: input.warnings,
    };
  },
});
