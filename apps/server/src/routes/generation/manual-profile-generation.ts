import { ManualProfileGenerationRequest, SuccessMessageResponse } from "@als/contract";
import { startManualGeneration } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { inBackground } from "./in-background.ts";

export const manualProfileGeneration = defineOperation({
  procedure: "generation.manualProfiles",
  method: "POST",
  path: "/api/manual_profile_generation",
  summary: "Extract profiles now from each user's most recent window of interactions (fire-and-forget; output CURRENT)",
  input: ManualProfileGenerationRequest,
  output: SuccessMessageResponse,
  async handle(ctx, input) {
    const { done } = await startManualGeneration(ctx.deps, ctx.scope, "profile", { userId: input.user_id, source: input.source });
    inBackground(ctx, "manual profile generation", done);
    return { success: true, message: "Profile generation started" };
  },
});
