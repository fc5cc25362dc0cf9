import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { rerunGeneration } from "@als/core";

export default implement(endpoints.generation.rerunPlaybooks, {
  async handle(ctx, input) {
    const { generated } = await rerunGeneration(
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
    if (generated === undefined) return { success: true, message: "Playbook generation started; its user playbooks are PENDING until upgrade_all_user_playbooks" };
    return { success: true, message: `Generated ${generated} PENDING user playbook(s)`, user_playbooks_generated: generated };
  },
});
