import { endpoints } from "@als/contract";
import { getStallState } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.learning.stallState, {
  async handle({ deps, scope }) {
    return { success: true, ...(await getStallState(deps, scope)) };
  },
});
