import { endpoints } from "@als/contract";
import { deleteUserPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.delete, {
  async handle({ deps, scope }, input) {
    await deleteUserPlaybook(deps, scope, input.user_playbook_id);
    return { success: true, message: `Deleted user playbook ${input.user_playbook_id}` };
  },
});
