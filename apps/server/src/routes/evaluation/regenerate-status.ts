import { endpoints } from "@als/contract";
import { regenerateStatus } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.regenerateStatus, {
  handle: ({ deps, scope }, input) => regenerateStatus(deps, scope, input.job_id),
});
