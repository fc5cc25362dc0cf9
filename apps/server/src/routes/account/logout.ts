import { endpoints } from "@als/contract";
import { logOut, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.logout, {
  async handle({ deps, principal }) {
    return logOut(deps, requireMemberSession(principal));
  },
});
