import { endpoints } from "@als/contract";
import { rerunGeneration } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.generation.rerunPlaybooks, {
  async handle(ctx, input) {
    const { runId, generated } = await rerunGeneration(
      ctx.deps,
      ctx.scope,
      "playbook",
      {
        agentVersion: input.agent_version,
        createdFrom: input.start_time,
        createdTo: input.end_time,
        source: input.source,
      },
      input.wait_for_response,
    );
    if (generated === undefined) {
      return { success: true, message: "Playbook generation started; its user playbooks are PENDING until upgrade_all_user_playbooks", operation_id: runId };
    }
    return {
      success: true,
      message: `Generated ${generated} PENDING user playbook(s)`,
      operation_id: runId,
      user_playbooks_generated: generated,
      playbooks_generated: generated,
    };
  },
});
