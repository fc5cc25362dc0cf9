import { NoInput } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import { MarkNotifiedResponse, StallStateResponse } from "../learning.ts";

export const learningEndpoints = defineResource("learning", {
  markStallNotified: {
    method: "POST",
    path: "/stall_state/notified",
    summary: "Record that the operator was told about the learning stall (idempotent)",
    input: NoInput,
    output: MarkNotifiedResponse,
  },
  stallState: {
    method: "GET",
    path: "/stall_state",
    summary: "Whether background extraction is paused by a provider auth or billing error",
    input: NoInput,
    output: StallStateResponse,
  },
});
