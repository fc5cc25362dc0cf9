import { BulkDeleteResponse, NoInput } from "@als/contract";
import { deleteAllUserPlaybooks as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "./bulk-deleted.ts";

export const deleteAllUserPlaybooks = defineOperation({
  procedure: "userPlaybooks.deleteAll",
  method: "DELETE",
  path: "/api/delete_all_user_playbooks",
  summary: "Delete every user playbook of the project",
  input: NoInput,
  output: BulkDeleteResponse,
  handle: async ({ deps, scope }) => bulkDeleted((await remove(deps, scope)).length),
});
