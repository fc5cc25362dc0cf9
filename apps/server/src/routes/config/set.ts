import { endpoints } from "@als/contract";
import { setProjectConfig } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.config.set, {
  async handle({ deps, scope }, input) {
    await setProjectConfig(deps, scope, input);
    return { success: true, message: "Configuration saved" };
  },
});
