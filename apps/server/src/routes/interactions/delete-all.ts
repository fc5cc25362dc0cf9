import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { deleteAllInteractions } from "@als/core";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.interactions.deleteAll, {
  async handle({ deps, scope }) {
    return bulkDeleted((await deleteAllInteractions(deps, scope)).interactions);
  },
});
