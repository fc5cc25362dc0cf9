import { endpoints } from "@als/contract";
import { finishOidcSignIn } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.finishOidcSignIn, {
  async handle({ deps, accounts }, input) {
    return finishOidcSignIn({ ...deps, ...accounts }, input);
  },
});
