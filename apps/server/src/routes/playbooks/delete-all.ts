import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { deleteAllPlaybooks } from "@als/core";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.playbooks.deleteAll, {
  handle: async ({ deps, scope }) => bulkDeleted(await deleteAllPlaybooks(deps, scope)),
});
