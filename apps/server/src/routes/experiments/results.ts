import { endpoints } from "@als/contract";
import { experimentResults } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.experiments.results, {
  handle: ({ deps, scope }, input) => experimentResults(deps, scope, input.experiment_id),
});
