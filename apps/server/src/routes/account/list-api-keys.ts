import { endpoints } from "@als/contract";
import { listApiKeys, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.listApiKeys, {
  async handle({ deps, principal }) {
    return listApiKeys(deps, requireMemberSession(principal));
  },
});
