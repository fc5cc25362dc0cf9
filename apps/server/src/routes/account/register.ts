import { endpoints } from "@als/contract";
import { registerAccount } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.register, {
  async handle({ deps, accounts }, input) {
    return registerAccount({ ...deps, ...accounts }, input);
  },
});
