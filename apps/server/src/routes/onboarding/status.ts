import { endpoints } from "@als/contract";
import { onboardingStatus } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.onboarding.status, {
  handle: ({ deps, scope }) => onboardingStatus(deps, scope),
});
