import { endpoints } from "@als/contract";
import { updateAnswer } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.humanQuestions.updateAnswer, {
  handle: ({ deps, scope }, input) => updateAnswer(deps, scope, input),
});
