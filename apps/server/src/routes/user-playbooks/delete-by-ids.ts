import { endpoints } from "@als/contract";
import { deleteUserPlaybooksByIds } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.userPlaybooks.deleteByIds, {
  handle: async ({ deps, scope }, input) => bulkDeleted((await deleteUserPlaybooksByIds(deps, scope, input.user_playbook_ids)).length),
});
