import { endpoints } from "@als/contract";
import { changeMemberRole, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.changeMemberRole, {
  async handle({ deps, principal }, input) {
    return changeMemberRole(deps, requireMemberSession(principal), input.member_id, input.role);
  },
});
