import { endpoints } from "@als/contract";
import { admitSearch, searchProfiles, toProfile } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.search, {
  async handle({ deps, scope, timings }, input) {
    // Under the process's search admission: 503 overloaded when it could not start in time.
    const found = await admitSearch(deps, (search) => searchProfiles(deps, scope, input, search), { timings });
    return { success: true, user_profiles: found.map(toProfile), msg: `Found ${found.length} matching profile(s)` };
  },
});
