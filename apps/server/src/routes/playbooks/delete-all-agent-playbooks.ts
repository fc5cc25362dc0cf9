import { BulkDeleteResponse, NoInput } from "@als/contract";
import { deleteAllAgentPlaybooks as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { bulkDeleted } from "./bulk-deleted.ts";

export const deleteAllAgentPlaybooks = defineOperation({
  procedure: "agentPlaybooks.deleteAll",
  method: "DELETE",
  path: "/api/delete_all_agent_playbooks",
  summary: "Delete every agent playbook of the project",
  input: NoInput,
  output: BulkDeleteResponse,
  handle: async ({ deps, scope }) => bulkDeleted((await remove(deps, scope)).length),
});
