import { endpoints } from "@als/contract";
import { getExperiment } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.experiments.get, {
  handle: ({ deps, scope }, input) => getExperiment(deps, scope, input.experiment_id),
});
