import { MyConfigResponse, NoInput } from "@als/contract";
import { rawStorageSettings } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const myConfig = defineOperation({
  procedure: "service.myConfig",
  method: "GET",
  path: "/api/my_config",
  summary: "The raw storage settings, credentials included: treat the response as secret",
  input: NoInput,
  output: MyConfigResponse,
  async handle({ deps }) {
    return { success: true, storage_type: deps.db.kind, storage_config: rawStorageSettings(deps) };
  },
});
