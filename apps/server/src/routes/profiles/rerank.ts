import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { rerankUserProfiles, toProfile } from "@als/core";

export default implement(endpoints.profiles.rerank, {
  async handle({ deps, scope }, input) {
    const ranked = await rerankUserProfiles(deps, scope, input);
    return { success: true, user_profiles: ranked.map(toProfile), msg: `Reranked ${ranked.length} profile(s)` };
  },
});
