import { endpoints } from "@als/contract";
import { deleteAllAgentPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.agentPlaybooks.deleteAll, {
  handle: async ({ deps, scope }) => bulkDeleted((await deleteAllAgentPlaybooks(deps, scope)).length),
});
