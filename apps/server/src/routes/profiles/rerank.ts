import { endpoints } from "@als/contract";
import { rerankUserProfiles, toProfile } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.rerank, {
  async handle({ deps, scope }, input) {
    const ranked = await rerankUserProfiles(deps, scope, input);
    return { success: true, user_profiles: ranked.map(toProfile), msg: `Reranked ${ranked.length} profile(s)` };
  },
});
