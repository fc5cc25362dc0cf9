import { endpoints } from "@als/contract";
import { clearUserData } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.users.clearData, {
  async handle({ deps, scope }, input) {
    const deleted = await clearUserData(deps, scope, input.user_id);
    return { success: true, message: `Cleared the data of user '${input.user_id}'`, deleted_counts: deleted };
  },
});
