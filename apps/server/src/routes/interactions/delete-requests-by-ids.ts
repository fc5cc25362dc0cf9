import { BulkDeleteResponse, DeleteRequestsByIdsRequest } from "@als/contract";
import { deleteRequestsByIds as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "../playbooks/bulk-deleted.ts";

export const deleteRequestsByIds = defineOperation({
  procedure: "requests.deleteByIds",
  method: "DELETE",
  path: "/api/delete_requests_by_ids",
  summary: "Delete the listed requests and their interactions",
  input: DeleteRequestsByIdsRequest,
  output: BulkDeleteResponse,
  async handle({ deps, scope }, input) {
    return bulkDeleted((await remove(deps, scope, input.request_ids)).requests);
  },
});
