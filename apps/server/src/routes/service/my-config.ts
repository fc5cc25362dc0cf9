import { endpoints } from "@als/contract";
import { rawStorageSettings } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.service.myConfig, {
  async handle({ deps }) {
    return { success: true, storage_type: deps.db.kind, storage_config: rawStorageSettings(deps) };
  },
});
