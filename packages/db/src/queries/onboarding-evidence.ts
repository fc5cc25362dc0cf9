import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

// What onboarding milestones are verified from: rows other features persisted. Clients cannot set
// these milestones; only this evidence does.

/** A live API key is bound to the project. */
export async function projectHasLiveApiKey(sql: Sql, scope: Scope): Promise<boolean> {
  const rows = await sql.query("SELECT 1 FROM api_keys WHERE org_id = $1 AND project_id = $2 AND revoked_at IS NULL LIMIT 1", [scope.orgId, scope.projectId]);
  return rows.length > 0;
}

/** The project has never committed a request. */
export async function projectIsEmpty(sql: Sql, scope: Scope): Promise<boolean> {
  const rows = await sql.query("SELECT 1 FROM requests WHERE org_id = $1 AND project_id = $2 LIMIT 1", [scope.orgId, scope.projectId]);
  return rows.length === 0;
}

export interface ConversationRequest {
  request_id: string;
  user_id: string;
  session_id: string;
  source: string;
  created_at: number;
}

/** Committed requests of a user's sessions from one source, oldest first. */
export async function requestsOfSessions(sql: Sql, scope: Scope, userId: string, sessionIds: string[], source: string): Promise<ConversationRequest[]> {
  return sql.query<ConversationRequest>(
    `SELECT request_id, user_id, session_id, source, created_at FROM requests
      WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND session_id = ANY($4::text[]) AND source = $5
      ORDER BY created_at, request_id`,
    [scope.orgId, scope.projectId, userId, sessionIds, source],
  );
}

/** Committed requests of one session, oldest first. */
export async function requestsOfSession(sql: Sql, scope: Scope, userId: string, sessionId: string): Promise<ConversationRequest[]> {
  return sql.query<ConversationRequest>(
    `SELECT request_id, user_id, session_id, source, created_at FROM requests
      WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND session_id = $4 ORDER BY created_at, request_id`,
    [scope.orgId, scope.projectId, userId, sessionId],
  );
}

/** A committed request of the project. */
export async function findConversationRequest(sql: Sql, scope: Scope, requestId: string): Promise<ConversationRequest | undefined> {
  const [row] = await sql.query<ConversationRequest>(
    "SELECT request_id, user_id, session_id, source, created_at FROM requests WHERE org_id = $1 AND project_id = $2 AND request_id = $3",
    [scope.orgId, scope.projectId, requestId],
  );
  return row;
}

export interface LearningOfUser {
  id: string;
  kind: "profile" | "user_playbook";
  content: string;
  created_at: number;
}

/** The user's current profiles and user playbooks, oldest first, as `profile:<id>` / `user_playbook:<id>`. */
export async function learningsOfUser(sql: Sql, scope: Scope, userId: string, limit: number): Promise<LearningOfUser[]> {
  return sql.query<LearningOfUser>(
    `SELECT * FROM (
        SELECT 'profile:' || profile_id AS id, 'profile' AS kind, content, created_at FROM profiles
         WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND status = 'CURRENT'
        UNION ALL
        SELECT 'user_playbook:' || user_playbook_id, 'user_playbook', content, created_at FROM user_playbooks
         WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND status = 'CURRENT'
      ) learnings ORDER BY created_at, id LIMIT $4`,
    [scope.orgId, scope.projectId, userId, limit],
  );
}

/** Which of `learningIds` a search with a full-access or limited API key served, in the order given. */
export async function learningsServedToApiKeys(sql: Sql, scope: Scope, learningIds: string[]): Promise<string[]> {
  if (learningIds.length === 0) return [];
  const [row] = await sql.query<{ served: string[] }>(
    `SELECT coalesce(array_agg(DISTINCT served), '{}') AS served FROM search_evidence, unnest(served_ids) AS served
      WHERE org_id = $1 AND project_id = $2 AND credential_kind = 'api_key' AND served_ids && $3::text[] AND served = ANY($3::text[])`,
    [scope.orgId, scope.projectId, learningIds],
  );
  const served = new Set(row!.served);
  return learningIds.filter((id) => served.has(id));
}

export interface PreviewMessage {
  interaction_id: number;
  role: string;
  content: string;
}

/** The first `limit` interactions of a request, in stream order. */
export async function firstInteractionsOfRequest(sql: Sql, scope: Scope, requestId: string, limit: number): Promise<PreviewMessage[]> {
  return sql.query<PreviewMessage>(
    `SELECT interaction_id, role, content FROM interactions WHERE org_id = $1 AND project_id = $2 AND request_id = $3 ORDER BY seq LIMIT $4`,
    [scope.orgId, scope.projectId, requestId, limit],
  );
}
