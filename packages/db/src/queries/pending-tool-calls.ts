import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type PendingToolCallStatus = "pending" | "resolved" | "expired" | "superseded" | "cancelled";

/** A question to a person, as stored (migration 0025); times are Unix seconds. */
export interface PendingToolCallRecord {
  id: string;
  org_id: string;
  project_id: string;
  user_id: string | null;
  tool_name: string;
  scope: Record<string, unknown>;
  scope_hash: string;
  dedup_key: string;
  status: PendingToolCallStatus;
  question_text: string;
  answer_format: string | null;
  args: Record<string, unknown>;
  tags: string[];
  result: Record<string, unknown> | null;
  superseded_by: string | null;
  created_at: number;
  resolved_at: number | null;
  expires_at: number;
  cache_until: number | null;
  valid_until: number | null;
}

const COLUMNS = `id, org_id, project_id, user_id, tool_name, scope, scope_hash, dedup_key, status, question_text, answer_format, args, tags,
  result, superseded_by, created_at, resolved_at, expires_at, cache_until, valid_until`;

export type NewToolCall = Pick<
  PendingToolCallRecord,
  "id" | "user_id" | "tool_name" | "scope" | "scope_hash" | "dedup_key" | "question_text" | "answer_format" | "args" | "tags" | "created_at" | "expires_at"
>;

/**
 * Raises a question for a run, or joins the identical one already pending (same dedup_key): the
 * run waits on whichever is pending. Pending questions of the same scope asked differently are
 * replaced by it: they become `superseded` (superseded_by it) and their runs wait on it instead.
 * Returns the id of the question the run waits on.
 */
export async function raiseToolCall(tx: Sql, scope: Scope, call: NewToolCall, runId: string): Promise<string> {
  const [inserted] = await tx.query<{ id: string }>(
    `INSERT INTO pending_tool_calls (id, org_id, project_id, user_id, tool_name, scope, scope_hash, dedup_key, status, question_text,
       answer_format, args, tags, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10, $11, $12, $13, $14)
     ON CONFLICT (org_id, project_id, dedup_key) WHERE status = 'pending' DO NOTHING RETURNING id`,
    [
      call.id,
      scope.orgId,
      scope.projectId,
      call.user_id,
      call.tool_name,
      call.scope,
      call.scope_hash,
      call.dedup_key,
      call.question_text,
      call.answer_format,
      call.args,
      call.tags,
      call.created_at,
      call.expires_at,
    ],
  );
  let id = inserted?.id;
  if (id) {
    const replaced = await tx.query<{ id: string }>(
      `UPDATE pending_tool_calls SET status = 'superseded', superseded_by = $4
       WHERE org_id = $1 AND project_id = $2 AND scope_hash = $3 AND status = 'pending' AND id <> $4 RETURNING id`,
      [scope.orgId, scope.projectId, call.scope_hash, id],
    );
    if (replaced.length > 0) {
      await tx.query(
        `INSERT INTO extraction_run_questions (run_id, call_id) SELECT run_id, $1 FROM extraction_run_questions WHERE call_id = ANY($2::text[])
         ON CONFLICT DO NOTHING`,
        [id, replaced.map((row) => row.id)],
      );
    }
  } else {
    const [existing] = await tx.query<{ id: string }>(
      "SELECT id FROM pending_tool_calls WHERE org_id = $1 AND project_id = $2 AND dedup_key = $3 AND status = 'pending'",
      [scope.orgId, scope.projectId, call.dedup_key],
    );
    id = existing!.id;
  }
  await tx.query("INSERT INTO extraction_run_questions (run_id, call_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [runId, id]);
  return id;
}

/** The latest resolved answer of this scope that may still be reused at `now` (cache_until), if any. */
export async function reusableAnswer(sql: Sql, scope: Scope, scopeHash: string, now: number): Promise<PendingToolCallRecord | undefined> {
  const [found] = await sql.query<PendingToolCallRecord>(
    `SELECT ${COLUMNS} FROM pending_tool_calls
     WHERE org_id = $1 AND project_id = $2 AND scope_hash = $3 AND status = 'resolved' AND cache_until > $4
     ORDER BY resolved_at DESC, id LIMIT 1`,
    [scope.orgId, scope.projectId, scopeHash, now],
  );
  return found;
}

/**
 * Marks the project's pending questions past their expiry `expired` (all projects when `scope` is
 * null) and returns the users whose runs waited on them, to be woken.
 */
export async function expireDueToolCalls(sql: Sql, scope: Scope | null, now: number): Promise<{ org_id: string; project_id: string; user_id: string }[]> {
  return sql.query(
    `WITH expired AS (
       UPDATE pending_tool_calls SET status = 'expired'
       WHERE status = 'pending' AND expires_at <= $1 AND ($2::text IS NULL OR (org_id = $2 AND project_id = $3)) RETURNING id)
     SELECT DISTINCT r.org_id, r.project_id, r.user_id FROM extraction_run_questions q JOIN extraction_runs r USING (run_id)
     WHERE q.call_id IN (SELECT id FROM expired) AND r.status = 'waiting'`,
    [now, scope?.orgId ?? null, scope?.projectId ?? null],
  );
}

export async function listToolCalls(sql: Sql, scope: Scope, status: PendingToolCallStatus | undefined, limit: number): Promise<PendingToolCallRecord[]> {
  return sql.query<PendingToolCallRecord>(
    `SELECT ${COLUMNS} FROM pending_tool_calls WHERE org_id = $1 AND project_id = $2 AND ($3::text IS NULL OR status = $3)
     ORDER BY created_at DESC, seq DESC LIMIT $4`,
    [scope.orgId, scope.projectId, status ?? null, limit],
  );
}

export async function findToolCall(sql: Sql, scope: Scope, id: string): Promise<PendingToolCallRecord | undefined> {
  const [found] = await sql.query<PendingToolCallRecord>(`SELECT ${COLUMNS} FROM pending_tool_calls WHERE org_id = $1 AND project_id = $2 AND id = $3`, [
    scope.orgId,
    scope.projectId,
    id,
  ]);
  return found;
}

/** A settlement of a question: resolving (from `pending`), changing the answer (of a `resolved` one), cancelling. */
export interface Settlement {
  from: PendingToolCallStatus;
  to: PendingToolCallStatus;
  result?: Record<string, unknown>;
  now: number;
  /** Until when the answer holds and may be reused (resolutions only). */
  validUntil?: number;
}

/** Applies the settlement when the question is in `from`; undefined when it is not (or unknown). */
export async function settleToolCall(tx: Sql, scope: Scope, id: string, settlement: Settlement): Promise<PendingToolCallRecord | undefined> {
  const resolving = settlement.to === "resolved";
  const [updated] = await tx.query<PendingToolCallRecord>(
    `UPDATE pending_tool_calls SET status = $5,
       result = CASE WHEN $6::boolean THEN $7::jsonb ELSE result END,
       resolved_at = CASE WHEN $6::boolean THEN $8::bigint ELSE resolved_at END,
       valid_until = CASE WHEN $6::boolean THEN $9::bigint ELSE valid_until END,
       cache_until = CASE WHEN $6::boolean THEN $9::bigint ELSE cache_until END
     WHERE org_id = $1 AND project_id = $2 AND id = $3 AND status = $4 RETURNING ${COLUMNS}`,
    [scope.orgId, scope.projectId, id, settlement.from, settlement.to, resolving, settlement.result ?? null, settlement.now, settlement.validUntil ?? null],
  );
  return updated;
}

/** The users whose runs still wait on this question, to be woken when it settles. */
export async function usersWaitingOn(sql: Sql, scope: Scope, id: string): Promise<string[]> {
  const rows = await sql.query<{ user_id: string }>(
    `SELECT DISTINCT r.user_id FROM extraction_run_questions q JOIN extraction_runs r USING (run_id)
     WHERE q.call_id = $3 AND r.org_id = $1 AND r.project_id = $2 AND r.status = 'waiting'`,
    [scope.orgId, scope.projectId, id],
  );
  return rows.map((row) => row.user_id);
}
