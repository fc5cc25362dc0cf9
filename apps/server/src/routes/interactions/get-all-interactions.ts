import { GetAllInteractionsQuery, InteractionsResponse } from "@als/contract";
import { getAllInteractions as read, toInteraction } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getAllInteractions = defineOperation({
  procedure: "interactions.getAll",
  method: "GET",
  path: "/api/get_all_interactions",
  summary: "The most recent interactions of every user, newest first",
  input: GetAllInteractionsQuery,
  output: InteractionsResponse,
  async handle({ deps, scope }, input) {
    const found = await read(deps, scope, input.limit);
    return { success: true, interactions: found.map(toInteraction), msg: `Found ${found.length} interaction(s)` };
  },
});
