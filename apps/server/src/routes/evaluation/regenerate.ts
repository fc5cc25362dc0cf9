import { endpoints } from "@als/contract";
import { startRegenerate } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.regenerate, {
  handle: ({ deps, scope }, input) => startRegenerate(deps, scope, input),
});
