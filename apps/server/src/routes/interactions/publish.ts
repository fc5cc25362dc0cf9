import { endpoints } from "@als/contract";
import { answerPublish } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.publish, {
  handle: ({ deps, scope, authMode, idempotencyKey }, input) => answerPublish(deps, scope, input, { idempotencyKey, hosted: authMode === "required" }),
});
