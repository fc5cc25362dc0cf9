import { endpoints } from "@als/contract";
import { listRetrievedLearningResults } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.evaluation.retrievedLearningResults, {
  handle: ({ deps, scope }, input) => listRetrievedLearningResults(deps, scope, input),
});
