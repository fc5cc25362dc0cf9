import { profileChangeLog, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { toProfile } from "./profile-view.ts";

/** The newest changes first: what each operation added to and removed from a user's profiles. */
export async function profileChangeHistory(deps: CoreDeps, scope: Scope, options: { userId?: string; limit: number }) {
  const rows = await profileChangeLog.listProfileChanges(deps.db, scope, options);
  return rows.map((row) => ({
    id: row.id,
    user_id: row.user_id,
    request_id: row.request_id ?? "",
    created_at: row.created_at,
    added_profiles: row.added_profiles.map(toProfile),
    removed_profiles: row.removed_profiles.map(toProfile),
    mentioned_profiles: [],
  }));
}
