import { endpoints } from "@als/contract";
import { updateUserPlaybook } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.update, {
  async handle({ deps, scope }, input) {
    await updateUserPlaybook(deps, scope, input);
    return { success: true, message: `Updated user playbook ${input.user_playbook_id}` };
  },
});
