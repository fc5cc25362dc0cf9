import { endpoints } from "@als/contract";
import { getToolCall } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.humanQuestions.get, {
  handle: ({ deps, scope }, input) => getToolCall(deps, scope, input.pending_tool_call_id),
});
