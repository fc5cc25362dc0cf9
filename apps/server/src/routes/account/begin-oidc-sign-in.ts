import { endpoints } from "@als/contract";
import { beginOidcSignIn } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.beginOidcSignIn, {
  async handle({ deps, accounts }) {
    return beginOidcSignIn({ ...deps, ...accounts });
  },
});
