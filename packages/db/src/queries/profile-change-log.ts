import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import type { ProfileRecord } from "./profiles.ts";

export interface ProfileChange {
  user_id: string;
  request_id: string | null;
  added_profiles: ProfileRecord[];
  removed_profiles: ProfileRecord[];
}

export type ProfileChangeLogRow = ProfileChange & { id: number; created_at: number };

export async function recordProfileChanges(sql: Sql, scope: Scope, changes: ProfileChange[], now: number): Promise<void> {
  if (changes.length === 0) return;
  await sql.query(
    `INSERT INTO profile_change_log (org_id, project_id, user_id, request_id, added_profiles, removed_profiles, created_at)
     SELECT $1, $2, c.user_id, c.request_id, c.added, c.removed, $3
     FROM jsonb_to_recordset($4::jsonb) AS c(user_id text, request_id text, added jsonb, removed jsonb)`,
    [
      scope.orgId,
      scope.projectId,
      now,
      // Both drivers serialize a value bound to a jsonb parameter themselves.
      changes.map((c) => ({ user_id: c.user_id, request_id: c.request_id, added: c.added_profiles, removed: c.removed_profiles })),
    ],
  );
}

export async function listProfileChanges(sql: Sql, scope: Scope, options: { userId?: string; limit: number }): Promise<ProfileChangeLogRow[]> {
  return sql.query<ProfileChangeLogRow>(
    `SELECT id, user_id, request_id, added_profiles, removed_profiles, created_at
     FROM profile_change_log WHERE org_id = $1 AND project_id = $2 AND ($3::text IS NULL OR user_id = $3)
     ORDER BY id DESC LIMIT $4`,
    [scope.orgId, scope.projectId, options.userId ?? null, options.limit],
  );
}

/** How many of a user's profiles the windows a request closed replaced with a merged version (their "removed" snapshots). */
export async function countProfilesMergedByRequest(sql: Sql, scope: Scope, userId: string, requestId: string): Promise<number> {
  const [row] = await sql.query<{ merged: number }>(
    `SELECT coalesce(sum(jsonb_array_length(removed_profiles)), 0)::int8 AS merged
     FROM profile_change_log WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND request_id = $4`,
    [scope.orgId, scope.projectId, userId, requestId],
  );
  return Number(row?.merged ?? 0);
}

/** Removes a user's change history (its snapshots hold the user's profile content). */
export async function deleteChangesOfUser(sql: Sql, scope: Scope, userId: string): Promise<void> {
  await sql.query("DELETE FROM profile_change_log WHERE org_id = $1 AND project_id = $2 AND user_id = $3", [scope.orgId, scope.projectId, userId]);
}
