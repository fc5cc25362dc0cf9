import { endpoints } from "@als/contract";
import { deleteProfile } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.delete, {
  async handle({ deps, scope }, input) {
    const removed = await deleteProfile(deps, scope, input);
    return {
      success: true,
      message: removed.length ? `Deleted ${removed.length} profile(s)` : "No matching profile",
      deleted_count: removed.length,
      profile_ids: removed.map((p) => p.profile_id),
    };
  },
});
