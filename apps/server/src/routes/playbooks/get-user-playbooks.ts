import { GetUserPlaybooksRequest, UserPlaybooksResponse } from "@als/contract";
import { getUserPlaybooks as readUserPlaybooks, toUserPlaybook } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getUserPlaybooks = defineOperation({
  procedure: "userPlaybooks.get",
  method: "POST",
  path: "/api/get_user_playbooks",
  summary: "User playbooks of any status unless filtered, newest first; query is a case-insensitive text filter",
  input: GetUserPlaybooksRequest,
  output: UserPlaybooksResponse,
  async handle({ deps, scope }, input) {
    const found = await readUserPlaybooks(deps, scope, input);
    return { success: true, user_playbooks: found.map(toUserPlaybook), msg: `Found ${found.length} user playbook(s)` };
  },
});
