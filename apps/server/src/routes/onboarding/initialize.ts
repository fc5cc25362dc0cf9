import { endpoints } from "@als/contract";
import { initializeOnboarding } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.onboarding.initialize, {
  handle: ({ deps, scope }) => initializeOnboarding(deps, scope),
});
