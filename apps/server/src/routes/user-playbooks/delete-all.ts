import { endpoints } from "@als/contract";
import { deleteAllUserPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.userPlaybooks.deleteAll, {
  handle: async ({ deps, scope }) => bulkDeleted((await deleteAllUserPlaybooks(deps, scope)).length),
});
