import { BulkDeleteResponse, NoInput } from "@als/contract";
import { deleteAllPlaybooks as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "./bulk-deleted.ts";

export const deleteAllPlaybooks = defineOperation({
  procedure: "playbooks.deleteAll",
  method: "DELETE",
  path: "/api/delete_all_playbooks",
  summary: "Delete every user and agent playbook of the project; deleted_count counts both",
  input: NoInput,
  output: BulkDeleteResponse,
  handle: async ({ deps, scope }) => bulkDeleted(await remove(deps, scope)),
});
