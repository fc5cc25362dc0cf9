import { endpoints } from "@als/contract";
import { storageStats } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.storageStats, {
  async handle({ deps, scope }, input) {
    const result = await storageStats(deps, scope, input.user_id);
    return { success: true, ...result, msg: `Found ${result.profile_count} profile(s) and ${result.playbook_count} playbook(s)` };
  },
});
