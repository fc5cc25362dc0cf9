import { endpoints } from "@als/contract";
import { updateOnboarding } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.onboarding.update, {
  handle: ({ deps, scope }, input) => updateOnboarding(deps, scope, input),
});
