import { endpoints } from "@als/contract";
import { deleteInteraction } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.delete, {
  async handle({ deps, scope }, input) {
    await deleteInteraction(deps, scope, input.user_id, input.interaction_id);
    return { success: true, message: `Deleted interaction ${input.interaction_id}` };
  },
});
