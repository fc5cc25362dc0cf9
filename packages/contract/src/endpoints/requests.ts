import { BulkDeleteResponse } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import {
  DeletedRequestsResponse,
  DeleteRequestRequest,
  DeleteRequestsByIdsRequest,
  DeleteSessionRequest,
  GetRequestsRequest,
  GetRequestsResponse,
} from "../interactions.ts";

export const requestsEndpoints = defineResource("requests", {
  get: {
    method: "POST",
    path: "/api/get_requests",
    summary: "A user's most recent requests with their interactions, grouped by session",
    input: GetRequestsRequest,
    output: GetRequestsResponse,
  },
  deleteByIds: {
    method: "DELETE",
    path: "/api/delete_requests_by_ids",
    summary: "Delete the listed requests and their interactions",
    input: DeleteRequestsByIdsRequest,
    output: BulkDeleteResponse,
  },
  deleteSession: {
    method: "DELETE",
    path: "/api/delete_session",
    summary: "Delete every request of a session and their interactions (session outcomes are kept)",
    input: DeleteSessionRequest,
    output: DeletedRequestsResponse,
  },
  delete: {
    method: "DELETE",
    path: "/api/delete_request",
    summary: "Delete a request and its interactions",
    input: DeleteRequestRequest,
    output: DeletedRequestsResponse,
  },
});
