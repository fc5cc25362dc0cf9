import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { startManualGeneration } from "@als/core";
import { inBackground } from "./in-background.ts";

export default implement(endpoints.generation.manualPlaybooks, {
  async handle(ctx, input) {
    const { done } = await startManualGeneration(ctx.deps, ctx.scope, "playbook", { agentVersion: input.agent_version, source: input.source });
    inBackground(ctx, "manual playbook generation", done);
    return { success: true, message: "Playbook generation started" };
  },
});
