import { endpoints } from "@als/contract";
import { deleteProfilesByIds } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.deleteByIds, {
  async handle({ deps, scope }, input) {
    const removed = await deleteProfilesByIds(deps, scope, input.profile_ids);
    return { success: true, deleted_count: removed.length, message: `Deleted ${removed.length} item(s)` };
  },
});
