import { endpoints } from "@als/contract";
import { issueApiKey, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.createApiKey, {
  async handle({ deps, principal }, input) {
    return issueApiKey(deps, requireMemberSession(principal), input);
  },
});
