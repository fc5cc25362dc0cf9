import { SuccessMessageResponse, UpdateUserPlaybookRequest } from "@als/contract";
import { updateUserPlaybook as update } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const updateUserPlaybook = defineOperation({
  procedure: "userPlaybooks.update",
  method: "PUT",
  path: "/api/update_user_playbook",
  summary: "Change the name, content, trigger or rationale of a user playbook",
  input: UpdateUserPlaybookRequest,
  output: SuccessMessageResponse,
  async handle({ deps, scope }, input) {
    await update(deps, scope, input);
    return { success: true, message: `Updated user playbook ${input.user_playbook_id}` };
  },
});
