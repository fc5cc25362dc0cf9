import { endpoints } from "@als/contract";
import { refreshOnboarding } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.onboarding.refresh, {
  handle: ({ deps, scope }) => refreshOnboarding(deps, scope),
});
