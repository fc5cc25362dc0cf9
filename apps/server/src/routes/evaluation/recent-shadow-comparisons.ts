import { endpoints } from "@als/contract";
import { recentShadowComparisons } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.recentShadowComparisons, {
  handle: ({ deps, scope }, input) => recentShadowComparisons(deps, scope, input),
});
