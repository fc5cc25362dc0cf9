import { MarkNotifiedResponse, NoInput } from "@als/contract";
import { markStallNotified as mark } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const markStallNotified = defineOperation({
  procedure: "learning.markStallNotified",
  method: "POST",
  path: "/stall_state/notified",
  summary: "Record that the operator was told about the learning stall (idempotent)",
  input: NoInput,
  output: MarkNotifiedResponse,
  async handle({ deps, scope }) {
    return { success: true, notified_in_cc: await mark(deps, scope) };
  },
});
