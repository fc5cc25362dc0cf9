import { endpoints } from "@als/contract";
import { profileChangeHistory } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.changeLog, {
  async handle({ deps, scope }, input) {
    const entries = await profileChangeHistory(deps, scope, { ...(input.user_id && { userId: input.user_id }), limit: input.limit });
    return { success: true, profile_change_logs: entries };
  },
});
