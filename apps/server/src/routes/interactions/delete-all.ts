import { endpoints } from "@als/contract";
import { deleteAllInteractions } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.interactions.deleteAll, {
  async handle({ deps, scope }) {
    return bulkDeleted((await deleteAllInteractions(deps, scope)).interactions);
  },
});
