import { endpoints } from "@als/contract";
import { rawStorageSettings } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.service.myConfig, {
  async handle({ deps, principal }) {
    // The raw settings are the deployment's own database: the operator of a local server may read
    // them; an organisation of a hosted one shares that database with every other, so it gets null.
    const storageConfig = principal.kind === "local" ? rawStorageSettings(deps) : null;
    return { success: true, storage_type: deps.db.kind, storage_config: storageConfig };
  },
});
