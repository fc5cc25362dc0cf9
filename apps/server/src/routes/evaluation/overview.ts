import { endpoints } from "@als/contract";
import { evaluationOverviewOf } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.overview, {
  handle: ({ deps, scope }, input) => evaluationOverviewOf(deps, scope, input),
});
