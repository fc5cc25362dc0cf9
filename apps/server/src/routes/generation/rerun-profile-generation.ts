import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { startRerun } from "@als/core";
import { inBackground } from "./in-background.ts";

export default implement(endpoints.generation.rerunProfiles, {
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
