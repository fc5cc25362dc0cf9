import { ProfileChangeLogQuery, ProfileChangeLogResponse } from "@als/contract";
import { profileChangeHistory } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const profileChangeLog = defineOperation({
  procedure: "profiles.changeLog",
  method: "GET",
  path: "/api/profile_change_log",
  summary: "History of profile changes, newest first",
  input: ProfileChangeLogQuery,
  output: ProfileChangeLogResponse,
  async handle({ deps, scope }, input) {
    const entries = await profileChangeHistory(deps, scope, { ...(input.user_id && { userId: input.user_id }), limit: input.limit });
    return { success: true, profile_change_logs: entries };
  },
});
