import { endpoints } from "@als/contract";
import { changePassword, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.changePassword, {
  async handle({ deps, principal, clientAddress }, input) {
    return changePassword(deps, requireMemberSession(principal), input, clientAddress);
  },
});
