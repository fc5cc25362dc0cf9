import { endpoints } from "@als/contract";
import { searchProfiles, toProfile } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.search, {
  async handle({ deps, scope }, input) {
    const found = await searchProfiles(deps, scope, input);
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} matching profile(s)` };
  },
});
