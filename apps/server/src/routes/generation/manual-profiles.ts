import { endpoints } from "@als/contract";
import { startManualGeneration } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.manualProfiles, {
  async handle(ctx, input) {
    await startManualGeneration(ctx.deps, ctx.scope, "profile", { userId: input.user_id, source: input.source });
    return { success: true, message: "Profile generation started" };
  },
});
