import { endpoints } from "@als/contract";
import { cancelRegenerate } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.cancelRegenerate, {
  handle: ({ deps, scope }, input) => cancelRegenerate(deps, scope, input.job_id),
});
