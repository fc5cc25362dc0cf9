import { RerunProfileGenerationRequest, RerunProfileGenerationResponse } from "@als/contract";
import { startRerun } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { inBackground } from "./in-background.ts";

export const rerunProfileGeneration = defineOperation({
  procedure: "generation.rerunProfiles",
  method: "POST",
  path: "/api/rerun_profile_generation",
  summary: "Regenerate profiles from all matching interactions as PENDING profiles (upgrade_all_profiles makes them current)",
  input: RerunProfileGenerationRequest,
  output: RerunProfileGenerationResponse,
  async handle(ctx, input) {
    const { done } = await startRerun(ctx.deps, ctx.scope, "profile", {
      userId: input.user_id,
      createdFrom: input.start_time,
      createdTo: input.end_time,
      source: input.source,
    });
    if (!input.wait_for_response) {
      inBackground(ctx, "profile generation rerun", done);
      return { success: true, message: "Profile generation started; its profiles are PENDING until upgrade_all_profiles" };
    }
    const generated = await done;
    return { success: true, message: `Generated ${generated} PENDING profile(s)`, profiles_generated: generated };
  },
});
