import { endpoints } from "@als/contract";
import { startOnboarding } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.onboarding.start, {
  handle: ({ deps, scope }, input) => startOnboarding(deps, scope, input.fresh),
});
