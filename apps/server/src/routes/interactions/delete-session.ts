import { DeletedRequestsResponse, DeleteSessionRequest } from "@als/contract";
import { deleteSession as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { deletedRequests } from "./deleted-requests.ts";

export const deleteSession = defineOperation({
  procedure: "requests.deleteSession",
  method: "DELETE",
  path: "/api/delete_session",
  summary: "Delete every request of a session and their interactions (session outcomes are kept)",
  input: DeleteSessionRequest,
  output: DeletedRequestsResponse,
  async handle({ deps, scope }, input) {
    return deletedRequests(await remove(deps, scope, input.session_id));
  },
});
