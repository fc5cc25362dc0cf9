import { endpoints } from "@als/contract";
import { deleteAgentPlaybooksByIds } from "@als/core";
import { implement } from "../../implement.ts";
import { bulkDeleted } from "../../responses/bulk-deleted.ts";

export default implement(endpoints.agentPlaybooks.deleteByIds, {
  handle: async ({ deps, scope }, input) => bulkDeleted((await deleteAgentPlaybooksByIds(deps, scope, input.agent_playbook_ids)).length),
});
