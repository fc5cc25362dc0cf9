import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export interface SearchEvidence {
  evidence_id: string;
  route: string;
  credential_kind: "api_key" | "login_session" | "governance_session";
  principal_id: string;
  user_id: string | null;
  served_ids: string[];
  created_at: number;
}

export async function insertSearchEvidence(sql: Sql, scope: Scope, evidence: SearchEvidence): Promise<void> {
  await sql.query(
    `INSERT INTO search_evidence (org_id, project_id, evidence_id, route, credential_kind, principal_id, user_id, served_ids, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      scope.orgId,
      scope.projectId,
      evidence.evidence_id,
      evidence.route,
      evidence.credential_kind,
      evidence.principal_id,
      evidence.user_id,
      evidence.served_ids,
      evidence.created_at,
    ],
  );
}

/** The project's evidence batches, oldest first. */
export async function listSearchEvidence(sql: Sql, scope: Scope, limit = 100): Promise<SearchEvidence[]> {
  return sql.query<SearchEvidence>(
    `SELECT evidence_id, route, credential_kind, principal_id, user_id, served_ids, created_at
       FROM search_evidence WHERE org_id = $1 AND project_id = $2 ORDER BY created_at, evidence_id LIMIT $3`,
    [scope.orgId, scope.projectId, limit],
  );
}
