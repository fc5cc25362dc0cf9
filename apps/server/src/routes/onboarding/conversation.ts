import { endpoints } from "@als/contract";
import { previewConversation } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.onboarding.conversation, {
  handle: ({ deps, scope }, input) => previewConversation(deps, scope, input),
});
