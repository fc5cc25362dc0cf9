import { LearningStatusQuery, LearningStatusResponse } from "@als/contract";
import { learningStatusOf } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const learningStatus = defineOperation({
  procedure: "interactions.learningStatus",
  method: "GET",
  path: "/api/learning_status",
  summary: "Where learning from a published request stands (pending, processing, done, failed, not_tracked) and why",
  input: LearningStatusQuery,
  output: LearningStatusResponse,
  async handle({ deps, scope }, input) {
    return { success: true, request_id: input.request_id, ...(await learningStatusOf(deps, scope, input.request_id)) };
  },
});
