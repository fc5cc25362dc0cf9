import { endpoints } from "@als/contract";
import { addAgentPlaybooks, writeOnce } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.agentPlaybooks.add, {
  handle: ({ deps, scope, idempotencyKey }, input) =>
    // Agent playbooks belong to no user.
    writeOnce(deps, scope, idempotencyKey, null, async (record) => {
      const answerOf = (stored: { agent_playbook_id: number }[]) => ({
        success: true,
        message: `Added ${stored.length} agent playbook(s)`,
        added_count: stored.length,
        agent_playbook_ids: stored.map((p) => p.agent_playbook_id),
        warnings: input.warnings,
      });
      return answerOf(await addAgentPlaybooks(deps, scope, input.agent_playbooks, record && ((tx, stored) => record(tx, answerOf(stored)))));
    }),
});
