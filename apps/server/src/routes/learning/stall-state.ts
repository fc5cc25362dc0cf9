import { NoInput, StallStateResponse } from "@als/contract";
import { getStallState } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const stallState = defineOperation({
  procedure: "learning.stallState",
  method: "GET",
  path: "/stall_state",
  summary: "Whether background extraction is paused by a provider auth or billing error",
  input: NoInput,
  output: StallStateResponse,
  async handle({ deps, scope }) {
    return { success: true, ...(await getStallState(deps, scope)) };
  },
});
