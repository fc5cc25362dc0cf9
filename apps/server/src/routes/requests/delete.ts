import { endpoints } from "@als/contract";
import { deleteRequest } from "@als/core";
import { implement } from "../../implement.ts";
import { deletedRequests } from "../../responses/deleted-requests.ts";

export default implement(endpoints.requests.delete, {
  async handle({ deps, scope }, input) {
    return deletedRequests(await deleteRequest(deps, scope, input.request_id));
  },
});
