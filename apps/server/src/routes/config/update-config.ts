import { UpdateConfigRequest, UpdateConfigResponse } from "@als/contract";
import { updateProjectConfig } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const updateConfig = defineOperation({
  procedure: "config.update",
  method: "POST",
  path: "/api/update_config",
  summary: "Replace some top-level fields of the project's configuration (nested objects whole), atomically",
  input: UpdateConfigRequest,
  output: UpdateConfigResponse,
  async handle({ deps, scope }, input) {
    await updateProjectConfig(deps, scope, input);
    return { success: true, msg: "Configuration updated" };
  },
});
