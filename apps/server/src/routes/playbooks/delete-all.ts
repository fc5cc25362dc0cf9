import { endpoints } from "@als/contract";
import { deleteAllPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.playbooks.deleteAll, {
  handle: async ({ deps, scope }) => bulkDeleted(await deleteAllPlaybooks(deps, scope)),
});
