import { BulkDeleteResponse, NoInput } from "@als/contract";
import { deleteAllInteractions as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "../playbooks/bulk-deleted.ts";

export const deleteAllInteractions = defineOperation({
  procedure: "interactions.deleteAll",
  method: "DELETE",
  path: "/api/delete_all_interactions",
  summary: "Delete every interaction of the project, with the requests that published them",
  input: NoInput,
  output: BulkDeleteResponse,
  async handle({ deps, scope }) {
    return bulkDeleted((await remove(deps, scope)).interactions);
  },
});
