import { endpoints } from "@als/contract";
import { cancelToolCall } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.humanQuestions.cancel, {
  handle: ({ deps, scope }, input) => cancelToolCall(deps, scope, input.pending_tool_call_id),
});
