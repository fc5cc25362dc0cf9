import { endpoints } from "@als/contract";
import { learningStatusOf } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.learningStatus, {
  async handle({ deps, scope }, input) {
    return { success: true, request_id: input.request_id, ...(await learningStatusOf(deps, scope, input.request_id)) };
  },
});
