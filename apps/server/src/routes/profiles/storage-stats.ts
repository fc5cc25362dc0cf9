import { StorageStatsQuery, StorageStatsResponse } from "@als/contract";
import { storageStats as stats } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const storageStats = defineOperation({
  procedure: "profiles.storageStats",
  method: "GET",
  path: "/api/storage_stats",
  summary: "Counts of a user's profiles and playbooks and the range of their modification times",
  input: StorageStatsQuery,
  output: StorageStatsResponse,
  async handle({ deps, scope }, input) {
    const result = await stats(deps, scope, input.user_id);
    return { success: true, ...result, msg: `Found ${result.profile_count} profile(s) and ${result.playbook_count} playbook(s)` };
  },
});
