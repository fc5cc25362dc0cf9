import { ConfigResponse, NoInput } from "@als/contract";
import { getProjectConfig, OFFLINE_TUNER_OVERLAY } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getConfig = defineOperation({
  procedure: "config.get",
  method: "GET",
  path: "/api/get_config",
  summary: "The project's configuration, every field at its value or default, with the offline_tuner_config overlay",
  input: NoInput,
  output: ConfigResponse,
  async handle({ deps, scope }) {
    return { ...(await getProjectConfig(deps, scope)), offline_tuner_config: OFFLINE_TUNER_OVERLAY };
  },
});
