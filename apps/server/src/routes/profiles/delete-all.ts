import { endpoints } from "@als/contract";
import { deleteAllProfiles } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.profiles.deleteAll, {
  async handle({ deps, scope }) {
    const removed = await deleteAllProfiles(deps, scope);
    return { success: true, deleted_count: removed.length, message: `Deleted ${removed.length} item(s)` };
  },
});
