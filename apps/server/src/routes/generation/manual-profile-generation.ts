import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { startManualGeneration } from "@als/core";
import { inBackground } from "./in-background.ts";

export default implement(endpoints.generation.manualProfiles, {
  async handle(ctx, input) {
    const { done } = await startManualGeneration(ctx.deps, ctx.scope, "profile", { userId: input.user_id, source: input.source });
    inBackground(ctx, "manual profile generation", done);
    return { success: true, message: "Profile generation started" };
  },
});
