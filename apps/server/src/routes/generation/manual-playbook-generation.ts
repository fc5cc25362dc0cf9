import { ManualPlaybookGenerationRequest, SuccessMessageResponse } from "@als/contract";
import { startManualGeneration } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { inBackground } from "./in-background.ts";

export const manualPlaybookGeneration = defineOperation({
  procedure: "generation.manualPlaybooks",
  method: "POST",
  path: "/api/manual_playbook_generation",
  summary: "Extract user playbooks now from each user's most recent window of interactions with an agent version (fire-and-forget; output CURRENT)",
  input: ManualPlaybookGenerationRequest,
  output: SuccessMessageResponse,
  async handle(ctx, input) {
    const { done } = await startManualGeneration(ctx.deps, ctx.scope, "playbook", { agentVersion: input.agent_version, source: input.source });
    inBackground(ctx, "manual playbook generation", done);
    return { success: true, message: "Playbook generation started" };
  },
});
