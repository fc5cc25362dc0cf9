import { endpoints } from "@als/contract";
import { updateProjectConfig } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.config.update, {
  async handle({ deps, scope }, input) {
    await updateProjectConfig(deps, scope, input);
    return { success: true, msg: "Configuration updated" };
  },
});
