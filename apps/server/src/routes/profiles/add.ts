import { endpoints } from "@als/contract";
import { addUserProfiles, writeOnce } from "@als/core";
import { implement } from "../../implement.ts";
import { onlyUserOf } from "../../responses/only-user-of.ts";

export default implement(endpoints.profiles.add, {
  handle: ({ deps, scope, idempotencyKey }, input) =>
    writeOnce(deps, scope, idempotencyKey, onlyUserOf(input.user_profiles), async (record) => {
      const answerOf = (stored: { profile_id: string }[]) => ({
        success: true,
        message: `Added ${stored.length} profile(s)`,
        added_count: stored.length,
        profile_ids: stored.map((p) => p.profile_id),
        warnings: input.warnings,
      });
      return answerOf(await addUserProfiles(deps, scope, input.user_profiles, record && ((tx, stored) => record(tx, answerOf(stored)))));
    }),
});
