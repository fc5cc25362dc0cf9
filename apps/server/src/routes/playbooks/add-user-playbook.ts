import { AddUserPlaybookRequest, AddUserPlaybookResponse } from "@als/contract";
import { addUserPlaybooks } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const addUserPlaybook = defineOperation({
  procedure: "userPlaybooks.add",
  method: "POST",
  path: "/api/add_user_playbook",
  summary: "Add user playbooks (each needs user_id and a content or trigger); returns their new ids in input order",
  input: AddUserPlaybookRequest,
  output: AddUserPlaybookResponse,
  async handle({ deps, scope }, input) {
    const stored = await addUserPlaybooks(deps, scope, input.user_playbooks);
    return {
      success: true,
      message: `Added ${stored.length} user playbook(s)`,
      added_count: stored.length,
      user_playbook_ids: stored.map((p) => p.user_playbook_id),
    };
  },
});
