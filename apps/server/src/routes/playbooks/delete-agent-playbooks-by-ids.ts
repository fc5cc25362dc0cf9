import { BulkDeleteResponse, DeleteAgentPlaybooksByIdsRequest } from "@als/contract";
import { deleteAgentPlaybooksByIds as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "./bulk-deleted.ts";

export const deleteAgentPlaybooksByIds = defineOperation({
  procedure: "agentPlaybooks.deleteByIds",
  method: "DELETE",
  path: "/api/delete_agent_playbooks_by_ids",
  summary: "Delete agent playbooks by id; unknown ids are not counted",
  input: DeleteAgentPlaybooksByIdsRequest,
  output: BulkDeleteResponse,
  handle: async ({ deps, scope }, input) => bulkDeleted((await remove(deps, scope, input.agent_playbook_ids)).length),
});
