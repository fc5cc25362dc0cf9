import { endpoints } from "@als/contract";
import { listMembers, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.listMembers, {
  async handle({ deps, principal }) {
    return listMembers(deps, requireMemberSession(principal));
  },
});
