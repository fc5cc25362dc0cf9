import { endpoints } from "@als/contract";
import { requireMemberSession, revokeApiKey } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.deleteApiKey, {
  async handle({ deps, principal }, input) {
    return revokeApiKey(deps, requireMemberSession(principal), input.prefix);
  },
});
