import { endpoints } from "@als/contract";
import { resolveToolCall } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.humanQuestions.resolve, {
  handle: ({ deps, scope }, input) => resolveToolCall(deps, scope, input),
});
