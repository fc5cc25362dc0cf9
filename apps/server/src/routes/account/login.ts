import { endpoints } from "@als/contract";
import { logIn } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.login, {
  async handle({ deps, clientAddress }, input) {
    return logIn(deps, input, clientAddress);
  },
});
