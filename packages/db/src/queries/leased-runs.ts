import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type RunStatus = "queued" | "running" | "retrying" | "succeeded" | "failed";

/** The columns every leased run has, whatever its work: where it stands and when. */
export interface LeasedRunState {
  org_id: string;
  project_id: string;
  status: RunStatus;
  attempts: number;
  error_code: string | null;
  result: Record<string, number> | null;
  retry_at: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/**
 * A table of durable runs (aggregation operations, generation runs, purge operations). Each keeps a run's state in the
 * same columns: status, attempts, error_code, result, lease_token, lease_expires_at, retry_at,
 * updated_at, finished_at, so one set of queries moves any of them through queued, running,
 * retrying, succeeded and failed. `columns` is what a claim returns.
 */
export interface LeasedRunTable {
  name: "aggregation_operations" | "generation_runs" | "purge_operations" | "evaluation_jobs";
  id: "operation_id" | "run_id" | "purge_id" | "job_id";
  columns: string;
}

/**
 * Takes a run to work on it: one that is queued, one whose retry is due, one whose worker's lease
 * expired (that worker died), or one this lease token already holds (a retried Temporal activity,
 * whose token is its workflow id). Returns it with its new attempt counted, or nothing.
 */
export async function claimRun<R>(sql: Sql, table: LeasedRunTable, id: string, leaseToken: string, now: number, leaseSeconds: number): Promise<R | undefined> {
  const [row] = await sql.query<R>(
    `UPDATE ${table.name} SET status = 'running', lease_token = $2, lease_expires_at = $3, attempts = attempts + 1, updated_at = $4
     WHERE ${table.id} = $1 AND (status = 'queued' OR (status = 'retrying' AND coalesce(retry_at, 0) <= $4)
       OR (status = 'running' AND (lease_token = $2 OR lease_expires_at <= $4)))
     RETURNING ${table.columns}`,
    [id, leaseToken, now + leaseSeconds, now],
  );
  return row;
}

/** Puts a running run back to wait for a retry; only its lease holder may. */
export async function retryRun(
  sql: Sql,
  table: LeasedRunTable,
  id: string,
  leaseToken: string,
  change: { errorCode: string; retryAt: number },
  now: number,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE ${table.name} SET status = 'retrying', error_code = $3, retry_at = $4, lease_token = NULL, updated_at = $5
     WHERE ${table.id} = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [id, leaseToken, change.errorCode, change.retryAt, now],
  );
  return rows.length > 0;
}

/** Puts a running run back in the queue for any worker to take at once (its worker is stopping); only its lease holder may. */
export async function releaseRun(sql: Sql, table: LeasedRunTable, id: string, leaseToken: string, now: number): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE ${table.name} SET status = 'queued', lease_token = NULL, lease_expires_at = NULL, updated_at = $3
     WHERE ${table.id} = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [id, leaseToken, now],
  );
  return rows.length > 0;
}

/** Ends a running run as failed with a safe error code; only its lease holder may. */
export async function failRun(sql: Sql, table: LeasedRunTable, id: string, leaseToken: string, errorCode: string, now: number): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE ${table.name} SET status = 'failed', error_code = $3, lease_token = NULL, finished_at = $4, updated_at = $4
     WHERE ${table.id} = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [id, leaseToken, errorCode, now],
  );
  return rows.length > 0;
}

/**
 * Marks a run succeeded with its result, in the transaction that writes its last output, only while
 * the caller still holds its lease (the row stays locked until the transaction ends). False: the
 * lease was lost or the run was cancelled, and the transaction must roll back.
 */
export async function completeRun(
  sql: Sql,
  table: LeasedRunTable,
  id: string,
  leaseToken: string,
  result: Record<string, number>,
  now: number,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE ${table.name} SET status = 'succeeded', result = $3, error_code = NULL, lease_token = NULL, finished_at = $4, updated_at = $4
     WHERE ${table.id} = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [id, leaseToken, result, now],
  );
  return rows.length > 0;
}

/** Runs a worker may take now, oldest first: queued, due for a retry, or held under an expired lease. */
export async function findRunnableRuns(sql: Sql, table: LeasedRunTable, now: number): Promise<(Scope & { id: string })[]> {
  const rows = await sql.query<{ id: string; org_id: string; project_id: string }>(
    `SELECT ${table.id} AS id, org_id, project_id FROM ${table.name}
     WHERE status = 'queued' OR (status = 'retrying' AND coalesce(retry_at, 0) <= $1) OR (status = 'running' AND lease_expires_at <= $1)
     ORDER BY created_at`,
    [now],
  );
  return rows.map((row) => ({ orgId: row.org_id, projectId: row.project_id, id: row.id }));
}

/**
 * Lets every running run be taken again now: for a process that knows no other process can be
 * holding one (the embedded database belongs to one process, so a lease still held is a crash's).
 */
export async function expireAllLeases(sql: Sql, table: LeasedRunTable, now: number): Promise<void> {
  await sql.query(`UPDATE ${table.name} SET lease_expires_at = $1 WHERE status = 'running' AND lease_expires_at > $1`, [now]);
}
