import { endpoints } from "@als/contract";
import { getInteractions, toInteraction } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.get, {
  async handle({ deps, scope }, input) {
    const found = await getInteractions(deps, scope, input);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
