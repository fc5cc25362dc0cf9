import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type ServedKind = "profile" | "user_playbook" | "agent_playbook";

export interface ServedItem {
  kind: ServedKind;
  id: string;
}

const key = (item: ServedItem) => `${item.kind}:${item.id}`;

/** What this session has been served already, as `kind:id` keys. */
export async function findServed(sql: Sql, scope: Scope, sessionId: string): Promise<Set<string>> {
  const rows = await sql.query<{ kind: ServedKind; item_id: string }>(
    "SELECT kind, item_id FROM search_session_served WHERE org_id = $1 AND project_id = $2 AND session_id = $3",
    [scope.orgId, scope.projectId, sessionId],
  );
  return new Set(rows.map((row) => key({ kind: row.kind, id: row.item_id })));
}

/**
 * Records `items` as served to the session and returns the `kind:id` keys this call recorded: an
 * item another search of the session claimed first is left out, so no learning is served twice.
 */
export async function claimServed(
  sql: Sql,
  scope: Scope,
  claim: { sessionId: string; interactionId: number | undefined; servedAt: number; items: ServedItem[] },
): Promise<Set<string>> {
  if (claim.items.length === 0) return new Set();
  const rows = await sql.query<{ kind: ServedKind; item_id: string }>(
    `INSERT INTO search_session_served (org_id, project_id, session_id, kind, item_id, interaction_id, served_at)
     SELECT $1, $2, $3, kind, item_id, $4, $5 FROM unnest($6::text[], $7::text[]) AS items(kind, item_id)
     ON CONFLICT DO NOTHING RETURNING kind, item_id`,
    [
      scope.orgId,
      scope.projectId,
      claim.sessionId,
      claim.interactionId ?? null,
      claim.servedAt,
      claim.items.map((item) => item.kind),
      claim.items.map((item) => item.id),
    ],
  );
  return new Set(rows.map((row) => key({ kind: row.kind, id: row.item_id })));
}

export { key as servedKey };
