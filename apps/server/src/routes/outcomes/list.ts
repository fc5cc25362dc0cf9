import { endpoints } from "@als/contract";
import { listSessionOutcomes } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.outcomes.list, {
  async handle({ deps, scope }, input) {
    const outcomes = await listSessionOutcomes(deps, scope, input);
    return { success: true, outcomes, session_outcomes: outcomes };
  },
});
