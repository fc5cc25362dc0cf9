import { SetConfigRequest, SetConfigResponse } from "@als/contract";
import { setProjectConfig } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const setConfig = defineOperation({
  procedure: "config.set",
  method: "POST",
  path: "/api/set_config",
  summary: "Replace the project's configuration: omitted fields return to their defaults; retrieval_experiment cannot change (409)",
  input: SetConfigRequest,
  output: SetConfigResponse,
  async handle({ deps, scope }, input) {
    await setProjectConfig(deps, scope, input);
    return { success: true, message: "Configuration saved" };
  },
});
