import { endpoints } from "@als/contract";
import { startExperiment } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.experiments.start, {
  handle: ({ deps, scope }, input) => startExperiment(deps, scope, input),
});
