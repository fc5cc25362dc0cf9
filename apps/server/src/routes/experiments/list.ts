import { endpoints } from "@als/contract";
import { listExperiments } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.experiments.list, {
  handle: ({ deps, scope }) => listExperiments(deps, scope),
});
