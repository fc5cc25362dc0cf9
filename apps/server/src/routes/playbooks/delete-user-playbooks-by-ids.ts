import { BulkDeleteResponse, DeleteUserPlaybooksByIdsRequest } from "@als/contract";
import { deleteUserPlaybooksByIds as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "./bulk-deleted.ts";

export const deleteUserPlaybooksByIds = defineOperation({
  procedure: "userPlaybooks.deleteByIds",
  method: "DELETE",
  path: "/api/delete_user_playbooks_by_ids",
  summary: "Delete user playbooks by id; unknown ids are not counted",
  input: DeleteUserPlaybooksByIdsRequest,
  output: BulkDeleteResponse,
  handle: async ({ deps, scope }, input) => bulkDeleted((await remove(deps, scope, input.user_playbook_ids)).length),
});
