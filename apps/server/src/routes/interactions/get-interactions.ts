import { GetInteractionsRequest, InteractionsResponse } from "@als/contract";
import { getInteractions as read, toInteraction } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getInteractions = defineOperation({
  procedure: "interactions.get",
  method: "POST",
  path: "/api/get_interactions",
  summary: "A user's most recent interactions, newest first",
  input: GetInteractionsRequest,
  output: InteractionsResponse,
  async handle({ deps, scope }, input) {
    const found = await read(deps, scope, input.user_id, input.top_k);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
