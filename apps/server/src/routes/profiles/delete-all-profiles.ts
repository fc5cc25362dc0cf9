import { BulkDeleteResponse, NoInput } from "@als/contract";
import { deleteAllProfiles as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const deleteAllProfiles = defineOperation({
  procedure: "profiles.deleteAll",
  method: "DELETE",
  path: "/api/delete_all_profiles",
  summary: "Delete every profile of the project",
  input: NoInput,
  output: BulkDeleteResponse,
  async handle({ deps, scope }) {
    const removed = await remove(deps, scope);
    return { success: true, deleted_count: removed.length, message: `Deleted ${removed.length} item(s)` };
  },
});
