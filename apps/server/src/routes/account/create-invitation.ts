import { endpoints } from "@als/contract";
import { inviteMember, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.createInvitation, {
  async handle({ deps, accounts, principal }, input) {
    return inviteMember({ ...deps, ...accounts }, requireMemberSession(principal), input);
  },
});
