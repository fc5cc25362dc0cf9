import { BulkDeleteResponse, DeleteProfilesByIdsRequest } from "@als/contract";
import { deleteProfilesByIds as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const deleteProfilesByIds = defineOperation({
  procedure: "profiles.deleteByIds",
  method: "DELETE",
  path: "/api/delete_profiles_by_ids",
  summary: "Delete profiles by id",
  input: DeleteProfilesByIdsRequest,
  output: BulkDeleteResponse,
  async handle({ deps, scope }, input) {
    const removed = await remove(deps, scope, input.profile_ids);
    return { success: true, deleted_count: removed.length, message: `Deleted ${removed.length} item(s)` };
  },
});
