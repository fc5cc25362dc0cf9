import { endpoints } from "@als/contract";
import { markNotApplicable } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.humanQuestions.notApplicable, {
  handle: ({ deps, scope }, input) => markNotApplicable(deps, scope, input),
});
