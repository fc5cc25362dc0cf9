import { BulkDeleteResponse, NoInput } from "../common.ts";
import { defineResource } from "../endpoint.ts";

export const playbooksEndpoints = defineResource("playbooks", {
  deleteAll: {
    method: "DELETE",
    path: "/api/delete_all_playbooks",
    summary: "Delete every user and agent playbook of the project; deleted_count counts both",
    input: NoInput,
    output: BulkDeleteResponse,
  },
});
