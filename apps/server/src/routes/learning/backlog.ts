import { endpoints } from "@als/contract";
import { learningBacklog } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.learning.backlog, {
  async handle({ deps, scope }) {
    return learningBacklog(deps, scope);
  },
});
