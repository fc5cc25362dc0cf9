import { endpoints } from "@als/contract";
import { removeMember, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.removeMember, {
  async handle({ deps, principal }, input) {
    return removeMember(deps, requireMemberSession(principal), input.member_id);
  },
});
