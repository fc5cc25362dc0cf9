import { endpoints } from "@als/contract";
import { rerunGeneration } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.rerunProfiles, {
  async handle(ctx, input) {
    const { runId, generated } = await rerunGeneration(
      ctx.deps,
      ctx.scope,
      "profile",
      {
        userId: input.user_id,
        createdFrom: input.start_time,
        createdTo: input.end_time,
        source: input.source,
      },
      input.wait_for_response,
    );
    if (generated === undefined) {
      return { success: true, message: "Profile generation started; its profiles are PENDING until upgrade_all_profiles", operation_id: runId };
    }
    return { success: true, message: `Generated ${generated} PENDING profile(s)`, operation_id: runId, profiles_generated: generated };
  },
});
