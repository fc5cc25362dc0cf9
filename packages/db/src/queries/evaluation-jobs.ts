import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import * as leased from "./leased-runs.ts";

const COLUMNS = `job_id, org_id, project_id, from_ts, to_ts, evaluation_name, status, total, completed, failed, after_session_id, failures,
  attempts, error_code, result, retry_at, created_at, updated_at, finished_at`;
const JOBS: leased.LeasedRunTable = { name: "evaluation_jobs", id: "job_id", columns: COLUMNS };

/** A leased run's statuses, and `cancelled`: a job's caller may cancel it, and no claim takes it then. */
export type EvaluationJobStatus = leased.RunStatus | "cancelled";

/** A regenerate job: the judges replayed over the sessions that started in [from_ts, to_ts). */
export interface EvaluationJobRecord extends Omit<leased.LeasedRunState, "status"> {
  status: EvaluationJobStatus;
  job_id: string;
  from_ts: number;
  to_ts: number;
  evaluation_name: string | null;
  total: number;
  completed: number;
  failed: number;
  after_session_id: string | null;
  failures: { session_id: string; reason: string }[];
}

/** The condition of sessions whose first request is in [$3, $4). */
const STARTED_IN = `SELECT session_id FROM requests WHERE org_id = $1 AND project_id = $2 GROUP BY session_id HAVING min(created_at) >= $3 AND min(created_at) < $4`;

export async function countSessionsStartedIn(sql: Sql, scope: Scope, from: number, to: number): Promise<number> {
  const [row] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${STARTED_IN}) started`, [scope.orgId, scope.projectId, from, to]);
  return row!.n;
}

/** The next sessions of the window after `after`, in session_id order: a job's cursor. */
export async function sessionsStartedIn(sql: Sql, scope: Scope, window: { from: number; to: number }, after: string | null, limit: number): Promise<string[]> {
  const rows = await sql.query<{ session_id: string }>(
    `SELECT session_id FROM (${STARTED_IN}) started WHERE $5::text IS NULL OR session_id > $5 ORDER BY session_id LIMIT $6`,
    [scope.orgId, scope.projectId, window.from, window.to, after, limit],
  );
  return rows.map((row) => row.session_id);
}

export async function insertJob(
  sql: Sql,
  scope: Scope,
  job: { jobId: string; from: number; to: number; evaluationName: string | null; total: number },
  now: number,
): Promise<void> {
  await sql.query(
    `INSERT INTO evaluation_jobs (job_id, org_id, project_id, from_ts, to_ts, evaluation_name, total, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
    [job.jobId, scope.orgId, scope.projectId, job.from, job.to, job.evaluationName, job.total, now],
  );
}

export async function readJob(sql: Sql, scope: Scope, jobId: string): Promise<EvaluationJobRecord | undefined> {
  const [row] = await sql.query<EvaluationJobRecord>(`SELECT ${COLUMNS} FROM evaluation_jobs WHERE org_id = $1 AND project_id = $2 AND job_id = $3`, [
    scope.orgId,
    scope.projectId,
    jobId,
  ]);
  return row;
}

export const claimJob = (sql: Sql, jobId: string, leaseToken: string, now: number, leaseSeconds: number) =>
  leased.claimRun<EvaluationJobRecord>(sql, JOBS, jobId, leaseToken, now, leaseSeconds);
export const completeJob = (sql: Sql, jobId: string, leaseToken: string, result: Record<string, number>, now: number) =>
  leased.completeRun(sql, JOBS, jobId, leaseToken, result, now);
export const failJob = (sql: Sql, jobId: string, leaseToken: string, errorCode: string, now: number) =>
  leased.failRun(sql, JOBS, jobId, leaseToken, errorCode, now);
export const retryJob = (sql: Sql, jobId: string, leaseToken: string, change: { errorCode: string; retryAt: number }, now: number) =>
  leased.retryRun(sql, JOBS, jobId, leaseToken, change, now);
export const releaseJob = (sql: Sql, jobId: string, leaseToken: string, now: number) => leased.releaseRun(sql, JOBS, jobId, leaseToken, now);

/**
 * Cancels a job that has not finished, in the caller's scope: its lease is dropped, so the worker
 * grading it fails its next commit and stops, and no claim takes it again. Answers the job as it
 * stands after the request (a finished job is left as it was), or nothing when it is unknown here.
 */
export async function cancelJob(sql: Sql, scope: Scope, jobId: string, now: number): Promise<EvaluationJobRecord | undefined> {
  const [cancelled] = await sql.query<EvaluationJobRecord>(
    `UPDATE evaluation_jobs SET status = 'cancelled', lease_token = NULL, lease_expires_at = NULL, retry_at = NULL, finished_at = $4, updated_at = $4
     WHERE org_id = $1 AND project_id = $2 AND job_id = $3 AND status IN ('queued', 'running', 'retrying') RETURNING ${COLUMNS}`,
    [scope.orgId, scope.projectId, jobId, now],
  );
  return cancelled ?? (await readJob(sql, scope, jobId));
}

/** Jobs a worker may take now: queued, due for a retry, or held under an expired lease. */
export async function findRunnableJobs(sql: Sql, now: number): Promise<(Scope & { jobId: string })[]> {
  return (await leased.findRunnableRuns(sql, JOBS, now)).map(({ id, ...scope }) => ({ ...scope, jobId: id }));
}

/** Lets every running job be taken again now (embedded start-up: a held lease is a crash's). */
export const expireJobLeases = (sql: Sql, now: number) => leased.expireAllLeases(sql, JOBS, now);

/**
 * Records one session of the job as graded or failed and moves the cursor past it, renewing the
 * lease, in the transaction that saved its grade; only while `leaseToken` holds the job. False: the
 * lease was lost, and the transaction must roll back.
 */
export async function recordJobProgress(
  tx: Sql,
  jobId: string,
  leaseToken: string,
  progress: { sessionId: string; failure: string | null; leaseUntil: number },
  now: number,
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE evaluation_jobs SET after_session_id = $3,
        completed = completed + CASE WHEN $4::text IS NULL THEN 1 ELSE 0 END,
        failed = failed + CASE WHEN $4::text IS NULL THEN 0 ELSE 1 END,
        failures = CASE WHEN $4::text IS NULL THEN failures ELSE failures || jsonb_build_array(jsonb_build_object('session_id', $3::text, 'reason', $4::text)) END,
        lease_expires_at = $5, updated_at = $6
      WHERE job_id = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [jobId, leaseToken, progress.sessionId, progress.failure, progress.leaseUntil, now],
  );
  return rows.length > 0;
}
