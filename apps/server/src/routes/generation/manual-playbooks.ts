import { endpoints } from "@als/contract";
import { startManualGeneration } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.manualPlaybooks, {
  async handle(ctx, input) {
    await startManualGeneration(ctx.deps, ctx.scope, "playbook", { agentVersion: input.agent_version, source: input.source });
    return { success: true, message: "Playbook generation started" };
  },
});
