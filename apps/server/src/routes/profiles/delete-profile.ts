import { DeleteProfileRequest, DeleteProfileResponse } from "@als/contract";
import { deleteProfile as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const deleteProfile = defineOperation({
  procedure: "profiles.delete",
  method: "DELETE",
  path: "/api/delete_profile",
  summary: "Delete one profile of a user, by profile_id or as the best match of search_query",
  input: DeleteProfileRequest,
  output: DeleteProfileResponse,
  async handle({ deps, scope }, input) {
    const removed = await remove(deps, scope, input);
    return {
      success: true,
      message: removed.length ? `Deleted ${removed.length} profile(s)` : "No matching profile",
      deleted_count: removed.length,
      profile_ids: removed.map((p) => p.profile_id),
    };
  },
});
