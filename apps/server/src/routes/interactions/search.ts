import { endpoints } from "@als/contract";
import { admitSearch, searchInteractions, toInteraction } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.search, {
  async handle({ deps, scope, timings }, input) {
    // Under the process's search admission: 503 overloaded when it could not start in time.
    const found = await admitSearch(deps, (search) => searchInteractions(deps, scope, input, search), { timings });
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
