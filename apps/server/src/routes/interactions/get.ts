import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { getInteractions, toInteraction } from "@als/core";

export default implement(endpoints.interactions.get, {
  async handle({ deps, scope }, input) {
    const found = await getInteractions(deps, scope, input);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
