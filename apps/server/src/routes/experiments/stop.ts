import { endpoints } from "@als/contract";
import { stopExperiment } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.experiments.stop, {
  handle: ({ deps, scope }, input) => stopExperiment(deps, scope, input),
});
