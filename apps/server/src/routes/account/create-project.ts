import { endpoints } from "@als/contract";
import { createProject, requireMemberSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.createProject, {
  async handle({ deps, principal }, input) {
    return createProject(deps, requireMemberSession(principal), input);
  },
});
