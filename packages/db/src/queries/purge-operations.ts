import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import * as leased from "./leased-runs.ts";

/** Where an erasure stands: its deletes, the final empty check, the audit write, the removal of its bytes (see physical-removal.ts), or done. */
export type PurgePhase = "delete" | "check" | "audit" | "physical_removal" | "done";

/** The erasure steps already done (ERASURE_STEPS names), rows removed by table, and the vector outbox mark of the deletes. */
export interface PurgeProgress {
  done: string[];
  counts: Record<string, number>;
  /** The last vector outbox change when the deletes were done: the check waits until the index took every change up to it. */
  outbox_mark?: number;
}

export type PurgeOperationRecord = leased.LeasedRunState & {
  purge_id: string;
  subject_ref: string;
  request_ref: string;
  /** The raw id while the erasure is unfinished; null once it ended. */
  subject_user_id: string | null;
  actor_ref: string;
  phase: PurgePhase;
  progress: PurgeProgress;
  error_detail: string | null;
  /** When the pass that removed the bytes of its rows ended; null before. */
  physically_removed_at: number | null;
};

const COLUMNS = `purge_id, org_id, project_id, subject_ref, request_ref, subject_user_id, actor_ref, phase, progress, status, attempts,
  error_code, error_detail, result, retry_at, created_at, updated_at, finished_at, physically_removed_at`;

const PURGES: leased.LeasedRunTable = { name: "purge_operations", id: "purge_id", columns: COLUMNS };

/**
 * The erasure of `subject` asked with `requestRef`: the one already made for that pair, or a new
 * queued one. The request takes the subject's lock exclusively first (see subject_lock_key), so the
 * writes of the subject already under way commit before it, and every later one sees the barrier
 * this row is once committed. `created` tells which.
 */
export async function findOrCreatePurge(
  tx: Sql,
  scope: Scope,
  purge: { purgeId: string; userId: string; subjectRef: string; requestRef: string; actorRef: string },
  now: number,
): Promise<{ operation: PurgeOperationRecord; created: boolean }> {
  const [existing] = await tx.query<PurgeOperationRecord>(
    `SELECT ${COLUMNS} FROM purge_operations WHERE org_id = $1 AND project_id = $2 AND subject_ref = $3 AND request_ref = $4`,
    [scope.orgId, scope.projectId, purge.subjectRef, purge.requestRef],
  );
  if (existing) return { operation: existing, created: false };
  await tx.query("SELECT pg_advisory_xact_lock(subject_lock_key($1, $2, $3))", [scope.orgId, scope.projectId, purge.userId]);
  const [inserted] = await tx.query<PurgeOperationRecord>(
    `INSERT INTO purge_operations (purge_id, org_id, project_id, subject_ref, request_ref, subject_user_id, actor_ref, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
     ON CONFLICT (org_id, project_id, subject_ref, request_ref) DO NOTHING RETURNING ${COLUMNS}`,
    [purge.purgeId, scope.orgId, scope.projectId, purge.subjectRef, purge.requestRef, purge.userId, purge.actorRef, now],
  );
  if (inserted) return { operation: inserted, created: true };
  // A concurrent request for the same pair committed first: its operation is this one.
  const [raced] = await tx.query<PurgeOperationRecord>(
    `SELECT ${COLUMNS} FROM purge_operations WHERE org_id = $1 AND project_id = $2 AND subject_ref = $3 AND request_ref = $4`,
    [scope.orgId, scope.projectId, purge.subjectRef, purge.requestRef],
  );
  return { operation: raced!, created: false };
}

export async function findPurge(sql: Sql, scope: Pick<Scope, "orgId">, purgeId: string): Promise<PurgeOperationRecord | undefined> {
  const [row] = await sql.query<PurgeOperationRecord>(`SELECT ${COLUMNS} FROM purge_operations WHERE org_id = $1 AND purge_id = $2`, [scope.orgId, purgeId]);
  return row;
}

/** Takes an operation to work on it (see leased-runs' claimRun). */
export const claimPurge = (sql: Sql, purgeId: string, leaseToken: string, now: number, leaseSeconds: number) =>
  leased.claimRun<PurgeOperationRecord>(sql, PURGES, purgeId, leaseToken, now, leaseSeconds);

/**
 * Records a step of the operation done (its phase and progress from what the holder last read),
 * extending the lease, in the transaction of the step's work. False: the lease was lost, and the
 * transaction must roll back.
 */
export async function advancePurge(
  sql: Sql,
  purgeId: string,
  leaseToken: string,
  to: { phase: PurgePhase; progress: PurgeProgress },
  now: number,
  leaseSeconds: number,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE purge_operations SET phase = $3, progress = $4::jsonb, lease_expires_at = $5, updated_at = $6
     WHERE purge_id = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [purgeId, leaseToken, to.phase, to.progress, now + leaseSeconds, now],
  );
  return rows.length > 0;
}

/**
 * Ends the operation as complete with its counts, forgetting the raw user id (which lifts the write
 * barrier), in the transaction of the audit write; its bytes wait for the next physical removal
 * pass. False: the lease was lost; roll back.
 */
export async function completePurge(sql: Sql, purgeId: string, leaseToken: string, counts: Record<string, number>, now: number): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE purge_operations SET status = 'succeeded', phase = 'physical_removal', result = $3, subject_user_id = NULL, error_code = NULL,
       error_detail = NULL, lease_token = NULL, retry_at = NULL, finished_at = $4, updated_at = $4
     WHERE purge_id = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [purgeId, leaseToken, counts, now],
  );
  return rows.length > 0;
}

/** Ends the operation as failed (it forgets the raw id and lifts the barrier; a new request_id starts over). */
export async function failPurge(
  sql: Sql,
  purgeId: string,
  leaseToken: string,
  failure: { code: string; detail: string | null },
  now: number,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE purge_operations SET status = 'failed', subject_user_id = NULL, error_code = $3, error_detail = $4, lease_token = NULL,
       finished_at = $5, updated_at = $5
     WHERE purge_id = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [purgeId, leaseToken, failure.code, failure.detail, now],
  );
  return rows.length > 0;
}

/** Puts a running operation back to wait for a retry, with why; only its lease holder may. */
export async function retryPurge(
  sql: Sql,
  purgeId: string,
  leaseToken: string,
  change: { errorCode: string; detail: string | null; retryAt: number },
  now: number,
) {
  const rows = await sql.query(
    `UPDATE purge_operations SET status = 'retrying', error_code = $3, error_detail = $4, retry_at = $5, lease_token = NULL, updated_at = $6
     WHERE purge_id = $1 AND status = 'running' AND lease_token = $2 RETURNING 1`,
    [purgeId, leaseToken, change.errorCode, change.detail, change.retryAt, now],
  );
  return rows.length > 0;
}

/** Puts a running operation back in the queue at once (its worker is stopping); only its lease holder may. */
export const releasePurge = (sql: Sql, purgeId: string, leaseToken: string, now: number) => leased.releaseRun(sql, PURGES, purgeId, leaseToken, now);

/** Operations a worker may take now: queued, due for a retry, or held under an expired lease. */
export async function findRunnablePurges(sql: Sql, now: number): Promise<(Scope & { purgeId: string })[]> {
  return (await leased.findRunnableRuns(sql, PURGES, now)).map(({ id, ...scope }) => ({ ...scope, purgeId: id }));
}

/** Lets every running operation be taken again now (embedded start-up: a held lease is a crash's). */
export const expirePurgeLeases = (sql: Sql, now: number) => leased.expireAllLeases(sql, PURGES, now);

/** Records that the subject was erased from the project, so imports do not bring them back. */
export async function suppressSubject(sql: Sql, scope: Scope, subjectRef: string, now: number): Promise<void> {
  await sql.query("INSERT INTO subject_suppressions (org_id, project_id, subject_ref, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [
    scope.orgId,
    scope.projectId,
    subjectRef,
    now,
  ]);
}

/** An audit row: minimized references and counts only. At most one per purge operation. */
export async function writeAudit(
  sql: Sql,
  scope: Scope,
  audit: {
    action: "export_user" | "erase_user";
    subjectRef: string;
    requestRef: string;
    actorRef: string;
    purgeId: string | null;
    counts: Record<string, number>;
  },
  now: number,
): Promise<void> {
  await sql.query(
    `INSERT INTO governance_audit (org_id, project_id, action, subject_ref, request_ref, actor_ref, purge_id, counts, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9) ON CONFLICT (purge_id) DO NOTHING`,
    [scope.orgId, scope.projectId, audit.action, audit.subjectRef, audit.requestRef, audit.actorRef, audit.purgeId, audit.counts, now],
  );
}
