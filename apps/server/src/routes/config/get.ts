import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { getProjectConfig, OFFLINE_TUNER_OVERLAY } from "@als/core";

export default implement(endpoints.config.get, {
  async handle({ deps, scope }) {
    return { ...(await getProjectConfig(deps, scope)), offline_tuner_config: OFFLINE_TUNER_OVERLAY };
  },
});
