import { endpoints } from "@als/contract";
import { addUserPlaybooks, writeOnce } from "@als/core";
import { implement } from "../../implement.ts";
import { onlyUserOf } from "../../responses/only-user-of.ts";

export default implement(endpoints.userPlaybooks.add, {
  handle: ({ deps, scope, idempotencyKey }, input) =>
    writeOnce(deps, scope, idempotencyKey, onlyUserOf(input.user_playbooks), async (record) => {
      const answerOf = (stored: { user_playbook_id: number }[]) => ({
        success: true,
        message: `Added ${stored.length} user playbook(s)`,
        added_count: stored.length,
        user_playbook_ids: stored.map((p) => p.user_playbook_id),
        warnings: input.warnings,
      });
      return answerOf(await addUserPlaybooks(deps, scope, input.user_playbooks, record && ((tx, stored) => record(tx, answerOf(stored)))));
    }),
});
