import { endpoints } from "@als/contract";
import { searchInteractions, toInteraction } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.search, {
  async handle({ deps, scope }, input) {
    const found = await searchInteractions(deps, scope, input);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
