import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { Params } from "./params.ts";

/** A published request as stored: its flags, and the stream positions of its interactions. */
export interface RequestRecord {
  request_id: string;
  user_id: string;
  session_id: string;
  source: string;
  agent_version: string;
  skip_aggregation: boolean;
  force_extraction: boolean;
  evaluation_only: boolean;
  override_learning_stall: boolean;
  /** The caller said the session finished with this request: the window covering it is due at once. */
  completion_hint: boolean;
  retrieval_experiment_id: string | null;
  retrieval_experiment_arm: string | null;
  first_seq: number;
  last_seq: number;
  created_at: number;
}

const COLUMNS = `request_id, user_id, session_id, source, agent_version, skip_aggregation, force_extraction, evaluation_only,
  override_learning_stall, completion_hint, retrieval_experiment_id, retrieval_experiment_arm, first_seq, last_seq, created_at`;

/**
 * Hands out `count` consecutive positions in the user's interaction stream and returns the first.
 * The user's row stays locked until the transaction ends, so positions of one user commit in order:
 * a cursor that has passed a position never sees an interaction appear behind it.
 */
export async function reserveStreamPositions(sql: Sql, scope: Scope, userId: string, count: number, now: number): Promise<number> {
  const [row] = await sql.query<{ first_seq: number }>(
    `INSERT INTO learning_users (org_id, project_id, user_id, next_seq, last_published_at) VALUES ($1, $2, $3, 1 + $4::int8, $5)
     ON CONFLICT (org_id, project_id, user_id) DO UPDATE
       SET next_seq = learning_users.next_seq + $4::int8, last_published_at = EXCLUDED.last_published_at
     RETURNING next_seq - $4::int8 AS first_seq`,
    [scope.orgId, scope.projectId, userId, count, now],
  );
  return row!.first_seq;
}

export async function insertRequest(sql: Sql, scope: Scope, request: RequestRecord): Promise<void> {
  await sql.query(`INSERT INTO requests (org_id, project_id, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`, [
    scope.orgId,
    scope.projectId,
    request.request_id,
    request.user_id,
    request.session_id,
    request.source,
    request.agent_version,
    request.skip_aggregation,
    request.force_extraction,
    request.evaluation_only,
    request.override_learning_stall,
    request.completion_hint,
    request.retrieval_experiment_id,
    request.retrieval_experiment_arm,
    request.first_seq,
    request.last_seq,
    request.created_at,
  ]);
}

export async function findRequest(sql: Sql, scope: Scope, requestId: string): Promise<RequestRecord | undefined> {
  const [row] = await sql.query<RequestRecord>(`SELECT ${COLUMNS} FROM requests WHERE org_id = $1 AND project_id = $2 AND request_id = $3`, [
    scope.orgId,
    scope.projectId,
    requestId,
  ]);
  return row;
}

export interface RequestFilters {
  userId: string;
  sessionId?: string;
  requestId?: string;
  /** The exact source; unset or empty: any. */
  source?: string;
  /** Inclusive bounds of created_at. */
  createdFrom?: number;
  createdTo?: number;
}

/** A page of a user's requests passing the filters, newest first: `limit` of them after skipping `offset`. */
export async function listRequestsOfUser(sql: Sql, scope: Scope, filters: RequestFilters, page: { limit: number; offset: number }): Promise<RequestRecord[]> {
  const params = new Params();
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`, `user_id = ${params.add(filters.userId)}`];
  if (filters.sessionId !== undefined) where.push(`session_id = ${params.add(filters.sessionId)}`);
  if (filters.requestId !== undefined) where.push(`request_id = ${params.add(filters.requestId)}`);
  if (filters.source) where.push(`source = ${params.add(filters.source)}`);
  if (filters.createdFrom !== undefined) where.push(`created_at >= ${params.add(filters.createdFrom)}`);
  if (filters.createdTo !== undefined) where.push(`created_at <= ${params.add(filters.createdTo)}`);
  return sql.query<RequestRecord>(
    `SELECT ${COLUMNS} FROM requests WHERE ${where.join(" AND ")}
     ORDER BY created_at DESC, last_seq DESC LIMIT ${params.add(page.limit)} OFFSET ${params.add(page.offset)}`,
    params.values,
  );
}

/**
 * Gives the completion hint to the user's latest request of the session that learning reads (not
 * evaluation-only): the window covering it becomes due. Returns that request, or nothing when the
 * user has no such request in the session.
 */
export async function hintSessionCompletion(sql: Sql, scope: Scope, userId: string, sessionId: string): Promise<RequestRecord | undefined> {
  const [row] = await sql.query<RequestRecord>(
    `UPDATE requests SET completion_hint = true
     WHERE org_id = $1 AND project_id = $2 AND request_id = (
       SELECT request_id FROM requests WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND session_id = $4 AND NOT evaluation_only
       ORDER BY last_seq DESC LIMIT 1)
     RETURNING ${COLUMNS}`,
    [scope.orgId, scope.projectId, userId, sessionId],
  );
  return row;
}

export interface RequestSelection {
  requestIds?: string[];
  sessionId?: string;
  userId?: string;
}

export interface DeletedRequests {
  requests: number;
  interactions: number;
}

/**
 * Deletes the selected requests and their interactions (every request of the project when the
 * selection is empty).
 */
export async function deleteRequests(sql: Sql, scope: Scope, selection: RequestSelection): Promise<DeletedRequests> {
  const params = new Params();
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`];
  if (selection.requestIds) where.push(`request_id = ANY(${params.add(selection.requestIds)}::text[])`);
  if (selection.sessionId !== undefined) where.push(`session_id = ${params.add(selection.sessionId)}`);
  if (selection.userId !== undefined) where.push(`user_id = ${params.add(selection.userId)}`);
  const condition = where.join(" AND ");
  const [counts] = await sql.query<DeletedRequests>(
    `WITH gone_interactions AS (DELETE FROM interactions WHERE ${condition} RETURNING 1),
          gone_requests AS (DELETE FROM requests WHERE ${condition} RETURNING 1)
     SELECT (SELECT count(*) FROM gone_requests)::int8 AS requests, (SELECT count(*) FROM gone_interactions)::int8 AS interactions`,
    params.values,
  );
  return counts!;
}
