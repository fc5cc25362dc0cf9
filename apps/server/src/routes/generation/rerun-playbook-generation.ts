import { RerunPlaybookGenerationRequest, RerunPlaybookGenerationResponse } from "@als/contract";
import { startRerun } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { inBackground } from "./in-background.ts";

export const rerunPlaybookGeneration = defineOperation({
  procedure: "generation.rerunPlaybooks",
  method: "POST",
  path: "/api/rerun_playbook_generation",
  summary: "Regenerate user playbooks from every user's interactions with an agent version as PENDING playbooks",
  input: RerunPlaybookGenerationRequest,
  output: RerunPlaybookGenerationResponse,
  async handle(ctx, input) {
    const { done } = await startRerun(ctx.deps, ctx.scope, "playbook", {
      agentVersion: input.agent_version,
      createdFrom: input.start_time,
      createdTo: input.end_time,
      source: input.source,
    });
    if (!input.wait_for_response) {
      inBackground(ctx, "playbook generation rerun", done);
      return { success: true, message: "Playbook generation started; its user playbooks are PENDING until upgrade_all_user_playbooks" };
    }
    const generated = await done;
    return { success: true, message: `Generated ${generated} PENDING user playbook(s)`, user_playbooks_generated: generated };
  },
});
