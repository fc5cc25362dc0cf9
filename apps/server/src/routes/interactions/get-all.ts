import { endpoints } from "@als/contract";
import { getAllInteractions, toInteraction } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.getAll, {
  async handle({ deps, scope }, input) {
    const found = await getAllInteractions(deps, scope, input.limit);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
