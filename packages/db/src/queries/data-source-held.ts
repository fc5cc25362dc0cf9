import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import type { ImportPhase } from "./data-source-collections.ts";

/** A trace a collection could not import, and why (migration 0031). */
export interface HeldRecord {
  external_trace_id: string;
  started_at: number;
  phase: ImportPhase;
  reasons: string[];
  rules: string[];
  user_id: string | null;
  record: unknown;
  status: "held" | "queued";
  held_at: number;
}

const COLUMNS = "external_trace_id, started_at::int AS started_at, phase, reasons, rules, user_id, record, status, held_at::int AS held_at";

/** Holds a trace (or updates why it is held); false when it already was (a re-read page). */
export async function holdRecord(tx: Sql, scope: Scope, streamId: string, held: Omit<HeldRecord, "status">): Promise<boolean> {
  const rows = await tx.query<{ inserted: boolean }>(
    `INSERT INTO data_source_held (stream_id, external_trace_id, org_id, project_id, started_at, phase, reasons, rules, user_id, record, status, held_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8::text::jsonb, $9, $10::text::jsonb, 'held', $11)
     ON CONFLICT (stream_id, external_trace_id) DO UPDATE SET reasons = excluded.reasons, rules = excluded.rules, user_id = excluded.user_id,
        record = excluded.record, status = 'held'
     RETURNING (xmax = 0) AS inserted`,
    [
      streamId,
      held.external_trace_id,
      scope.orgId,
      scope.projectId,
      held.started_at,
      held.phase,
      JSON.stringify(held.reasons),
      JSON.stringify(held.rules),
      held.user_id,
      held.record === null ? null : JSON.stringify(held.record),
      held.held_at,
    ],
  );
  return rows[0]?.inserted ?? false;
}

/** A page of the stream's held records, oldest first, after the position `after` names. */
export async function pageHeld(
  sql: Sql,
  scope: Scope,
  streamId: string,
  after: { held_at: number; external_trace_id: string } | null,
  limit: number,
): Promise<HeldRecord[]> {
  return sql.query<HeldRecord>(
    `SELECT ${COLUMNS} FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND stream_id = $3
        AND ($4::bigint IS NULL OR (held_at, external_trace_id) > ($4::bigint, $5::text))
      ORDER BY held_at, external_trace_id LIMIT $6`,
    [scope.orgId, scope.projectId, streamId, after?.held_at ?? null, after?.external_trace_id ?? "", limit],
  );
}

/** The named held records of the stream (those that still are). */
export async function findHeld(sql: Sql, scope: Scope, streamId: string, traceIds: string[]): Promise<HeldRecord[]> {
  return sql.query<HeldRecord>(
    `SELECT ${COLUMNS} FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND external_trace_id = ANY($4::text[])
      ORDER BY held_at, external_trace_id`,
    [scope.orgId, scope.projectId, streamId, traceIds],
  );
}

/** Which of the named traces the stream holds (their ids only: a held record may be large). */
export async function heldTraceIds(sql: Sql, scope: Scope, streamId: string, traceIds: string[]): Promise<Set<string>> {
  const rows = await sql.query<{ external_trace_id: string }>(
    `SELECT external_trace_id FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND external_trace_id = ANY($4::text[])`,
    [scope.orgId, scope.projectId, streamId, traceIds],
  );
  return new Set(rows.map((row) => row.external_trace_id));
}

/** The stream's held records, and how many of them a retry queued. */
export async function countHeld(sql: Sql, scope: Scope, streamId: string): Promise<{ held: number; queued: number }> {
  const [row] = await sql.query<{ held: number; queued: number }>(
    `SELECT count(*)::int AS held, count(*) FILTER (WHERE status = 'queued')::int AS queued FROM data_source_held
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`,
    [scope.orgId, scope.projectId, streamId],
  );
  return row!;
}

/** A retry's dispositions: these records are queued for import, those discarded. */
export async function applyDispositions(tx: Sql, scope: Scope, streamId: string, queue: string[], discard: string[]): Promise<void> {
  await tx.query(
    "UPDATE data_source_held SET status = 'queued' WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND external_trace_id = ANY($4::text[])",
    [scope.orgId, scope.projectId, streamId, queue],
  );
  await tx.query("DELETE FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND external_trace_id = ANY($4::text[])", [
    scope.orgId,
    scope.projectId,
    streamId,
    discard,
  ]);
}

/** Records a retry queued, oldest first. */
export async function queuedHeld(sql: Sql, scope: Scope, streamId: string, limit: number): Promise<HeldRecord[]> {
  return sql.query<HeldRecord>(
    `SELECT ${COLUMNS} FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND status = 'queued'
      ORDER BY held_at, external_trace_id LIMIT $4`,
    [scope.orgId, scope.projectId, streamId, limit],
  );
}

/** A held record is resolved: imported (in the import's transaction) or found imported already. */
export async function releaseHeld(sql: Sql, scope: Scope, streamId: string, traceId: string): Promise<void> {
  await sql.query("DELETE FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND external_trace_id = $4", [
    scope.orgId,
    scope.projectId,
    streamId,
    traceId,
  ]);
}
