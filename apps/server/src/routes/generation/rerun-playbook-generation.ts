import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { startRerun } from "@als/core";
import { inBackground } from "./in-background.ts";

export default implement(endpoints.generation.rerunPlaybooks, {
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
