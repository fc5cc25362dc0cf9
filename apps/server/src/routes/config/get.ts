import { endpoints } from "@als/contract";
import { getProjectConfig, toConfigView } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.config.get, {
  async handle({ deps, scope }) {
    return toConfigView(await getProjectConfig(deps, scope), deps.embedder.calibration);
  },
});
