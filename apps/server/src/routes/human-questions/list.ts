import { endpoints } from "@als/contract";
import { listToolCalls } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.humanQuestions.list, {
  handle: ({ deps, scope }, input) => listToolCalls(deps, scope, input),
});
