import { endpoints } from "@als/contract";
import { getProfiles, toProfile } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.get, {
  async handle({ deps, scope }, input) {
    const found = await getProfiles(deps, scope, input);
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} profile(s)` };
  },
});
