import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import type { GenerationFilters } from "./interactions.ts";
import type { Extractor } from "./learning.ts";
import * as leased from "./leased-runs.ts";

/** What a run was asked to do: a rerun or manual generation of one kind of learning, or an applied review. */
export type GenerationWork =
  | { kind: "rerun"; extractor: Extractor; params: GenerationFilters }
  | { kind: "manual"; extractor: Extractor; params: GenerationFilters }
  | { kind: "review_apply"; extractor: null; params: { user_playbook_ids: number[] } };

/**
 * How far a run got: the last user whose output it committed (generations take users in id order;
 * a review's own decisions say which playbooks it did), and its counts so far.
 */
export interface GenerationProgress {
  after_user: string | null;
  counts: Record<string, number>;
}

/** A stored run; `GenerationRunOf<"rerun">` is one of a kind. */
export type GenerationRunRecord = GenerationWork &
  leased.LeasedRunState & {
    run_id: string;
    progress: GenerationProgress;
  };

export type GenerationRunOf<K extends GenerationWork["kind"]> = Extract<GenerationRunRecord, { kind: K }>;

const COLUMNS = `run_id, org_id, project_id, kind, extractor, params, progress, status, attempts, error_code, result, retry_at,
  created_at, updated_at, finished_at`;

const RUNS: leased.LeasedRunTable = { name: "generation_runs", id: "run_id", columns: COLUMNS };

/** Inserts a queued run (in the transaction of the request that asked for it). */
export async function insertRun(
  sql: Sql,
  scope: Scope,
  run: GenerationWork & { runId: string; progress: GenerationProgress },
  now: number,
): Promise<GenerationRunRecord> {
  const [row] = await sql.query<GenerationRunRecord>(
    `INSERT INTO generation_runs (run_id, org_id, project_id, kind, extractor, params, progress, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $8) RETURNING ${COLUMNS}`,
    [run.runId, scope.orgId, scope.projectId, run.kind, run.extractor, run.params, run.progress, now],
  );
  return row!;
}

export async function findRun(sql: Sql, scope: Scope, runId: string): Promise<GenerationRunRecord | undefined> {
  const [row] = await sql.query<GenerationRunRecord>(`SELECT ${COLUMNS} FROM generation_runs WHERE org_id = $1 AND project_id = $2 AND run_id = $3`, [
    scope.orgId,
    scope.projectId,
    runId,
  ]);
  return row;
}

/** Takes a run to work on it (see leased-runs' claimRun); returns it with its new attempt counted, or nothing. */
export const claimRun = (sql: Sql, runId: string, leaseToken: string, now: number, leaseSeconds: number) =>
  leased.claimRun<GenerationRunRecord>(sql, RUNS, runId, leaseToken, now, leaseSeconds);

/**
 * Moves a run's progress from what its worker last read to what it just committed, and extends the
 * worker's lease, in the transaction of that commit. False, and the transaction must roll back: the
 * run moved on without this worker (another took it over and committed), or its lease was lost.
 */
export async function advanceRun(
  sql: Sql,
  runId: string,
  leaseToken: string,
  move: { from: GenerationProgress; to: GenerationProgress },
  now: number,
  leaseSeconds: number,
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE generation_runs SET progress = $4::jsonb, lease_expires_at = $5, updated_at = $6
     WHERE run_id = $1 AND status = 'running' AND lease_token = $2 AND progress = $3::jsonb RETURNING 1`,
    [runId, leaseToken, move.from, move.to, now + leaseSeconds, now],
  );
  return rows.length > 0;
}

/** Puts a running run back to wait for a retry; only its lease holder may. */
export const retryRun = (sql: Sql, runId: string, leaseToken: string, change: { errorCode: string; retryAt: number }, now: number) =>
  leased.retryRun(sql, RUNS, runId, leaseToken, change, now);

/** Puts a running run back in the queue for any worker to take at once (its worker is stopping); only its lease holder may. */
export const releaseRun = (sql: Sql, runId: string, leaseToken: string, now: number) => leased.releaseRun(sql, RUNS, runId, leaseToken, now);

/** Ends a running run as failed with a safe error code; only its lease holder may. */
export const failRun = (sql: Sql, runId: string, leaseToken: string, errorCode: string, now: number) =>
  leased.failRun(sql, RUNS, runId, leaseToken, errorCode, now);

/** Marks a run succeeded with its counts, while the caller holds its lease; false: the transaction must roll back. */
export const completeRun = (sql: Sql, runId: string, leaseToken: string, result: Record<string, number>, now: number) =>
  leased.completeRun(sql, RUNS, runId, leaseToken, result, now);

/** Runs a worker may take now: queued, due for a retry, or held under an expired lease. */
export async function findRunnableRuns(sql: Sql, now: number): Promise<(Scope & { runId: string })[]> {
  return (await leased.findRunnableRuns(sql, RUNS, now)).map(({ id, ...scope }) => ({ ...scope, runId: id }));
}

/** Lets every running run be taken again now (embedded start-up: a held lease is a crash's). */
export const expireRunLeases = (sql: Sql, now: number) => leased.expireAllLeases(sql, RUNS, now);

/** The project's latest rerun or manual generation of a kind of learning (the last one created). */
export async function findLatestGenerationOf(sql: Sql, scope: Scope, extractor: Extractor): Promise<GenerationRunRecord | undefined> {
  const [row] = await sql.query<GenerationRunRecord>(
    `SELECT ${COLUMNS} FROM generation_runs WHERE org_id = $1 AND project_id = $2 AND extractor = $3 AND kind IN ('rerun', 'manual')
     ORDER BY created_order DESC LIMIT 1`,
    [scope.orgId, scope.projectId, extractor],
  );
  return row;
}
