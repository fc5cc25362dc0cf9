import { DeletedRequestsResponse, DeleteRequestRequest } from "@als/contract";
import { deleteRequest as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { deletedRequests } from "./deleted-requests.ts";

export const deleteRequest = defineOperation({
  procedure: "requests.delete",
  method: "DELETE",
  path: "/api/delete_request",
  summary: "Delete a request and its interactions",
  input: DeleteRequestRequest,
  output: DeletedRequestsResponse,
  async handle({ deps, scope }, input) {
    return deletedRequests(await remove(deps, scope, input.request_id));
  },
});
