import { endpoints } from "@als/contract";
import { resendVerification } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.resendVerification, {
  async handle({ deps, accounts }, input) {
    return resendVerification({ ...deps, ...accounts }, input.email);
  },
});
