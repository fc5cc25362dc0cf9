import { DeleteUserPlaybookRequest, SuccessMessageResponse } from "@als/contract";
import { deleteUserPlaybook as remove } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const deleteUserPlaybook = defineOperation({
  procedure: "userPlaybooks.delete",
  method: "DELETE",
  path: "/api/delete_user_playbook",
  summary: "Delete one user playbook (404 when unknown)",
  input: DeleteUserPlaybookRequest,
  output: SuccessMessageResponse,
  async handle({ deps, scope }, input) {
    await remove(deps, scope, input.user_playbook_id);
    return { success: true, message: `Deleted user playbook ${input.user_playbook_id}` };
  },
});
