import { endpoints } from "@als/contract";
import { describeMember, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.me, {
  async handle({ deps, principal }) {
    return describeMember(deps, requireMemberSession(principal));
  },
});
