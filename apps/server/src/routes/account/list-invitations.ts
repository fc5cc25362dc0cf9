import { endpoints } from "@als/contract";
import { listInvitations, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.listInvitations, {
  async handle({ deps, principal }) {
    return listInvitations(deps, requireMemberSession(principal));
  },
});
