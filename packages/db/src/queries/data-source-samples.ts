import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type SampleStatus = "in_progress" | "complete" | "failed";

/** A sample of a stream's traffic (migration 0028). */
export interface SampleRecord {
  sample_id: string;
  stream_id: string;
  stream_revision: number;
  status: SampleStatus;
  window_start: number;
  window_end: number;
  records: unknown[];
  truncated: boolean;
  coverage: Record<string, unknown> | null;
  buckets: unknown[];
  code: string | null;
  retry_at: number | null;
  attempts: number;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
}

const COLUMNS = `sample_id, stream_id, stream_revision::int AS stream_revision, status, window_start::int AS window_start, window_end::int AS window_end,
  records, truncated, coverage, buckets, code, retry_at::int AS retry_at, attempts, created_at::int AS created_at, expires_at::int AS expires_at,
  completed_at::int AS completed_at`;

export async function insertSample(
  sql: Sql,
  scope: Scope,
  sample: Pick<SampleRecord, "sample_id" | "stream_id" | "stream_revision" | "window_start" | "window_end" | "created_at" | "expires_at">,
): Promise<SampleRecord> {
  const [created] = await sql.query<SampleRecord>(
    `INSERT INTO data_source_samples (sample_id, org_id, project_id, stream_id, stream_revision, status, window_start, window_end, next_attempt_at, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'in_progress', $6, $7, $8, $8, $9) RETURNING ${COLUMNS}`,
    [
      sample.sample_id,
      scope.orgId,
      scope.projectId,
      sample.stream_id,
      sample.stream_revision,
      sample.window_start,
      sample.window_end,
      sample.created_at,
      sample.expires_at,
    ],
  );
  return created!;
}

export async function findSample(sql: Sql, scope: Scope, sampleId: string): Promise<SampleRecord | undefined> {
  const [found] = await sql.query<SampleRecord>(`SELECT ${COLUMNS} FROM data_source_samples WHERE org_id = $1 AND project_id = $2 AND sample_id = $3`, [
    scope.orgId,
    scope.projectId,
    sampleId,
  ]);
  return found;
}

/** Samples in progress whose step may run now: due, and held by no live lease. */
export async function findRunnableSamples(sql: Sql, now: number): Promise<{ orgId: string; projectId: string; sampleId: string }[]> {
  return sql.query(
    `SELECT org_id AS "orgId", project_id AS "projectId", sample_id AS "sampleId" FROM data_source_samples
      WHERE status = 'in_progress' AND next_attempt_at <= $1 AND (lease_expires_at IS NULL OR lease_expires_at <= $1) ORDER BY created_at`,
    [now],
  );
}

/** Takes the sample's step for `leaseSeconds` under `token` (a holder's retry takes it over); undefined when it is not runnable. */
export async function claimSample(
  sql: Sql,
  scope: Scope,
  sampleId: string,
  token: string,
  now: number,
  leaseSeconds: number,
): Promise<SampleRecord | undefined> {
  const [claimed] = await sql.query<SampleRecord>(
    `UPDATE data_source_samples SET lease_token = $4, lease_expires_at = $5 + $6::bigint, attempts = attempts + 1
      WHERE org_id = $1 AND project_id = $2 AND sample_id = $3 AND status = 'in_progress' AND next_attempt_at <= $5
        AND (lease_expires_at IS NULL OR lease_expires_at <= $5 OR lease_token = $4)
      RETURNING ${COLUMNS}`,
    [scope.orgId, scope.projectId, sampleId, token, now, leaseSeconds],
  );
  return claimed;
}

/** Ends the step: complete with what it read, or failed with a code; false when the lease was lost. */
export async function finishSample(
  sql: Sql,
  scope: Scope,
  sampleId: string,
  token: string,
  result:
    | { status: "complete"; records: unknown[]; truncated: boolean; coverage: Record<string, unknown>; buckets: unknown[]; at: number }
    | { status: "failed"; code: string; retry_at: number | null; at: number },
): Promise<boolean> {
  const complete = result.status === "complete";
  const finished = await sql.query(
    `UPDATE data_source_samples
        SET status = $5, records = $6::text::jsonb, truncated = $7, coverage = $8::text::jsonb, buckets = $9::text::jsonb,
            code = $10, retry_at = $11, completed_at = $12, lease_token = NULL, lease_expires_at = NULL
      WHERE org_id = $1 AND project_id = $2 AND sample_id = $3 AND lease_token = $4 AND status = 'in_progress' RETURNING sample_id`,
    [
      scope.orgId,
      scope.projectId,
      sampleId,
      token,
      result.status,
      // As text: lists would otherwise be sent as PostgreSQL arrays.
      JSON.stringify(complete ? result.records : []),
      complete && result.truncated,
      complete ? JSON.stringify(result.coverage) : null,
      JSON.stringify(complete ? result.buckets : []),
      complete ? null : result.code,
      complete ? null : result.retry_at,
      result.at,
    ],
  );
  return finished.length > 0;
}

/** Gives the step back after an unexpected failure: another attempt at `retryAt`. */
export async function retrySample(sql: Sql, scope: Scope, sampleId: string, token: string, retryAt: number): Promise<void> {
  await sql.query(
    `UPDATE data_source_samples SET lease_token = NULL, lease_expires_at = NULL, next_attempt_at = $5
      WHERE org_id = $1 AND project_id = $2 AND sample_id = $3 AND lease_token = $4 AND status = 'in_progress'`,
    [scope.orgId, scope.projectId, sampleId, token, retryAt],
  );
}

/** The embedded database belongs to one process: a lease still held at start-up was that process's, before it stopped. */
export async function expireSampleLeases(sql: Sql, now: number): Promise<void> {
  await sql.query("UPDATE data_source_samples SET lease_expires_at = $1 WHERE status = 'in_progress' AND lease_expires_at > $1", [now]);
}

/** The stream's samples, newest first, without their records. */
export async function listSampleSummaries(sql: Sql, scope: Scope): Promise<Omit<SampleRecord, "records">[]> {
  return sql.query(
    `SELECT ${COLUMNS.replace("records,", "'[]'::jsonb AS records,")} FROM data_source_samples WHERE org_id = $1 AND project_id = $2 ORDER BY created_at DESC, sample_id`,
    [scope.orgId, scope.projectId],
  );
}

/**
 * Rotation invalidates retained evidence (rule 2): the stream's samples lose their records and
 * read as failed `invalidated_by_rotation`, so validation needs a fresh one.
 */
export async function invalidateStreamSamples(tx: Sql, scope: Scope, streamId: string, now: number): Promise<void> {
  await tx.query(
    `UPDATE data_source_samples SET status = 'failed', code = 'invalidated_by_rotation', records = '[]', buckets = '[]', retry_at = NULL,
            completed_at = coalesce(completed_at, $4), lease_token = NULL, lease_expires_at = NULL
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`,
    [scope.orgId, scope.projectId, streamId, now],
  );
}
