import { endpoints } from "@als/contract";
import { listAgentSuccessResults } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.agentSuccessResults, {
  handle: ({ deps, scope }, input) => listAgentSuccessResults(deps, scope, input),
});
