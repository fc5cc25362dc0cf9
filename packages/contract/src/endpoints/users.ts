import { defineResource } from "../endpoint.ts";
import { ClearUserDataRequest, ClearUserDataResponse } from "../interactions.ts";

export const usersEndpoints = defineResource("users", {
  clearData: {
    method: "POST",
    path: "/api/clear_user_data",
    summary: "Remove a user's interactions, requests, profiles and user playbooks (agent playbooks stay)",
    input: ClearUserDataRequest,
    output: ClearUserDataResponse,
  },
});
