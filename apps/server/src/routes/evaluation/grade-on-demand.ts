import { endpoints } from "@als/contract";
import { gradeOnDemand } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.gradeOnDemand, {
  handle: ({ deps, scope }, input) => gradeOnDemand(deps, scope, input),
});
