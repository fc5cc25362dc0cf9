import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/**
 * The durable per-session timers: a row per session that waits (status 'waiting') until due_at,
 * and a retry's backoff, then is leased by one worker, which marks it done in the transaction that
 * saved its work. Evaluation (evaluation_sessions) and outcome inference (outcome_inferences) keep
 * such rows; these are the queries both run over them. The table name is one of these constants,
 * never input.
 */
export type SessionTimerTable = "evaluation_sessions" | "outcome_inferences";

/** The status and time column a table marks a session done with. */
const DONE: Record<SessionTimerTable, { status: string; at: string }> = {
  evaluation_sessions: { status: "graded", at: "graded_at" },
  outcome_inferences: { status: "settled", at: "settled_at" },
};

/** The timer columns every such table has. */
export interface SessionTimerState {
  last_activity_at: number;
  due_at: number;
  status: string;
  failure: string | null;
  attempts: number;
  retry_at: number | null;
}

/**
 * Takes a waiting session whose delay (and retry backoff) has passed, unless a live lease holds it;
 * a lease this token already holds (a retried activity) is taken over. Returns the row's `columns`.
 */
export async function claimDueTimer<T>(
  sql: Sql,
  table: SessionTimerTable,
  columns: string,
  scope: Scope,
  sessionId: string,
  lease: { token: string; now: number; seconds: number },
): Promise<T | undefined> {
  const [row] = await sql.query<T>(
    `UPDATE ${table} SET lease_token = $4, lease_expires_at = $5, attempts = attempts + 1
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND status = 'waiting' AND due_at <= $6
        AND coalesce(retry_at, 0) <= $6 AND (lease_token IS NULL OR lease_token = $4 OR lease_expires_at <= $6)
      RETURNING ${columns}`,
    [scope.orgId, scope.projectId, sessionId, lease.token, lease.now + lease.seconds, lease.now],
  );
  return row;
}

/** Leaves the session waiting with the attempt's failure and when to try again (null: when something changes); only its lease holder may. */
export async function releaseTimer(
  sql: Sql,
  table: SessionTimerTable,
  scope: Scope,
  sessionId: string,
  leaseToken: string,
  change: { failure: string | null; retryAt: number | null },
): Promise<void> {
  await sql.query(
    `UPDATE ${table} SET lease_token = NULL, lease_expires_at = NULL, failure = $5, retry_at = $6
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND lease_token = $4`,
    [scope.orgId, scope.projectId, sessionId, leaseToken, change.failure, change.retryAt],
  );
}

/**
 * Marks the session done, in the transaction that saved its work; only while this lease holds it
 * and no publish moved it since it was read (then it stays waiting for its new deadline, and the
 * transaction must roll back).
 */
export async function markTimerDone(
  tx: Sql,
  table: SessionTimerTable,
  scope: Scope,
  sessionId: string,
  leaseToken: string,
  lastActivityAt: number,
  now: number,
): Promise<boolean> {
  const done = DONE[table];
  const rows = await tx.query(
    `UPDATE ${table} SET status = '${done.status}', ${done.at} = $6, failure = NULL, retry_at = NULL, attempts = 0,
        lease_token = NULL, lease_expires_at = NULL
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND lease_token = $4 AND last_activity_at = $5 AND status = 'waiting'
      RETURNING 1`,
    [scope.orgId, scope.projectId, sessionId, leaseToken, lastActivityAt, now],
  );
  return rows.length > 0;
}

/** Notes why a waiting session is not moving (no provider to judge with). */
export async function noteTimerWaiting(sql: Sql, table: SessionTimerTable, scope: Scope, sessionId: string, failure: string): Promise<void> {
  await sql.query(`UPDATE ${table} SET failure = $4 WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND status = 'waiting'`, [
    scope.orgId,
    scope.projectId,
    sessionId,
    failure,
  ]);
}

/** Waiting sessions whose time has come (and whose retry is due), across projects: what a reconciler pass takes. */
export async function findDueTimers(sql: Sql, table: SessionTimerTable, now: number, limit: number): Promise<(Scope & { sessionId: string })[]> {
  return sql.query(
    `SELECT org_id AS "orgId", project_id AS "projectId", session_id AS "sessionId" FROM ${table}
      WHERE status = 'waiting' AND due_at <= $1 AND coalesce(retry_at, 0) <= $1 AND (lease_token IS NULL OR lease_expires_at <= $1)
      ORDER BY due_at LIMIT $2`,
    [now, limit],
  );
}

/** Every waiting session, across projects: what a starting worker hands to Temporal (a start that reached it before is left alone). */
export async function findWaitingTimers(sql: Sql, table: SessionTimerTable): Promise<(Scope & { sessionId: string })[]> {
  return sql.query(`SELECT org_id AS "orgId", project_id AS "projectId", session_id AS "sessionId" FROM ${table} WHERE status = 'waiting' ORDER BY due_at`);
}

/** Frees every lease (the embedded process that held them is gone). */
export async function releaseAllTimerLeases(sql: Sql, table: SessionTimerTable): Promise<void> {
  await sql.query(`UPDATE ${table} SET lease_token = NULL, lease_expires_at = NULL WHERE lease_token IS NOT NULL`);
}

export async function readTimer(sql: Sql, table: SessionTimerTable, scope: Scope, sessionId: string): Promise<SessionTimerState | undefined> {
  const [row] = await sql.query<SessionTimerState>(
    `SELECT last_activity_at, due_at, status, failure, attempts, retry_at FROM ${table} WHERE org_id = $1 AND project_id = $2 AND session_id = $3`,
    [scope.orgId, scope.projectId, sessionId],
  );
  return row;
}
