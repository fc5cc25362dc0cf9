import { endpoints } from "@als/contract";
import { recordSessionOutcome } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.outcomes.record, {
  async handle({ deps, scope }, input) {
    return recordSessionOutcome(deps, scope, input);
  },
});
