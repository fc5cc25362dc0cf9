import { endpoints } from "@als/contract";
import { openGovernanceSession, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.createGovernanceSession, {
  async handle({ deps, principal, clientAddress }, input) {
    return openGovernanceSession(deps, requireMemberSession(principal), input, clientAddress);
  },
});
