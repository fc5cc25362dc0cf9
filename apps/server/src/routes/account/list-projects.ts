import { endpoints } from "@als/contract";
import { listProjects, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.listProjects, {
  async handle({ deps, principal }) {
    return listProjects(deps, requireMemberSession(principal));
  },
});
