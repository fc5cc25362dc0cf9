import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import type { ImportPhase } from "./data-source-collections.ts";

/** Which external trace a receipt is for: the provider's project and trace. */
export interface ExternalTraceKey {
  provider: string;
  external_project_id: string;
  external_trace_id: string;
}

/** The deduplication receipt of an imported trace (migration 0031). */
export interface ReceiptRecord {
  external_trace_id: string;
  stream_id: string;
  request_id: string | null;
  user_id: string | null;
  session_id: string | null;
  rule: string | null;
  mapping_revision: number | null;
  phase: ImportPhase | "suppressed";
  message_units: number;
  imported_at: number;
}

/**
 * Writes the receipt of a trace in the transaction that publishes it; false when the trace already
 * has one (imported before, or suppressed by an erasure): the caller rolls the publish back.
 */
export async function insertReceipt(tx: Sql, scope: Scope, key: ExternalTraceKey, receipt: Omit<ReceiptRecord, "external_trace_id">): Promise<boolean> {
  const inserted = await tx.query(
    `INSERT INTO data_source_receipts (org_id, project_id, provider, external_project_id, external_trace_id, stream_id, request_id, user_id, session_id,
        rule, mapping_revision, phase, message_units, imported_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING RETURNING external_trace_id`,
    [
      scope.orgId,
      scope.projectId,
      key.provider,
      key.external_project_id,
      key.external_trace_id,
      receipt.stream_id,
      receipt.request_id,
      receipt.user_id,
      receipt.session_id,
      receipt.rule,
      receipt.mapping_revision,
      receipt.phase,
      receipt.message_units,
      receipt.imported_at,
    ],
  );
  return inserted.length > 0;
}

/** Of these traces of one external project, the ones that have a receipt. */
export async function receiptedTraces(sql: Sql, scope: Scope, provider: string, externalProjectId: string, traceIds: string[]): Promise<Set<string>> {
  if (traceIds.length === 0) return new Set();
  const rows = await sql.query<{ id: string }>(
    `SELECT external_trace_id AS id FROM data_source_receipts
      WHERE org_id = $1 AND project_id = $2 AND provider = $3 AND external_project_id = $4 AND external_trace_id = ANY($5::text[])`,
    [scope.orgId, scope.projectId, provider, externalProjectId, traceIds],
  );
  return new Set(rows.map((row) => row.id));
}

/** The stream's most recent imports, newest first. */
export async function recentReceipts(sql: Sql, scope: Scope, streamId: string, limit: number): Promise<ReceiptRecord[]> {
  return sql.query<ReceiptRecord>(
    `SELECT external_trace_id, stream_id, request_id, user_id, session_id, rule, mapping_revision::int AS mapping_revision, phase, message_units,
            imported_at::int AS imported_at
       FROM data_source_receipts WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND phase <> 'suppressed'
      ORDER BY imported_at DESC, external_trace_id DESC LIMIT $4`,
    [scope.orgId, scope.projectId, streamId, limit],
  );
}
