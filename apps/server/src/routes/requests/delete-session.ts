import { endpoints } from "@als/contract";
import { deleteSession } from "@als/core";
import { implement } from "../../implement.ts";
import { deletedRequests } from "../../responses/deleted-requests.ts";

export default implement(endpoints.requests.deleteSession, {
  async handle({ deps, scope }, input) {
    return deletedRequests(await deleteSession(deps, scope, input.session_id));
  },
});
