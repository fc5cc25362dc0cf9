import { endpoints } from "@als/contract";
import { verifyEmail } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.verifyEmail, {
  async handle({ deps }, input) {
    return verifyEmail(deps, input.token);
  },
});
