import { ClearUserDataRequest, ClearUserDataResponse } from "@als/contract";
import { clearUserData as clear } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const clearUserData = defineOperation({
  procedure: "users.clearData",
  method: "POST",
  path: "/api/clear_user_data",
  summary: "Remove a user's interactions, requests, profiles and user playbooks (agent playbooks stay)",
  input: ClearUserDataRequest,
  output: ClearUserDataResponse,
  async handle({ deps, scope }, input) {
    const deleted = await clear(deps, scope, input.user_id);
    return { success: true, message: `Cleared the data of user '${input.user_id}'`, deleted_counts: deleted };
  },
});
