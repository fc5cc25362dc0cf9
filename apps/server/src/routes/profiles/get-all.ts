import { endpoints } from "@als/contract";
import { getAllProfiles, toProfile } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.getAll, {
  async handle({ deps, scope }, input) {
    const found = await getAllProfiles(deps, scope, input);
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} profile(s)` };
  },
});
