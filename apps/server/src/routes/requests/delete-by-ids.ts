import { endpoints } from "@als/contract";
import { deleteRequestsByIds } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.requests.deleteByIds, {
  async handle({ deps, scope }, input) {
    return bulkDeleted((await deleteRequestsByIds(deps, scope, input.request_ids)).requests);
  },
});
