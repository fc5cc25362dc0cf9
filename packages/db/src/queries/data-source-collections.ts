import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type CollectionState = "active" | "paused" | "stopped";
export type BackfillStatus = "not_requested" | "importing" | "budget_exhausted" | "complete";
/** Where a trace was read: the history backfill, live polling, or a retry of a held record. */
export type ImportPhase = "backfill" | "live" | "retry";
/** What became of a trace a collection read. */
/** What a phase counts: traces by outcome, supporting spans read, and traces whose spans were cut at the limits. */
export type ImportOutcome = "imported" | "duplicates" | "held" | "excluded" | "read" | "spans_read" | "spans_bounded";

/** An activated stream's collection (migration 0031). */
export interface CollectionRecord {
  stream_id: string;
  connection_id: string;
  provider: string;
  region: string;
  external_project_id: string;
  workspace_id: string | null;
  activated_at: number;
  state: CollectionState;
  lifecycle_revision: number;
  mapping_revision: number;
  mapping_definition: unknown;
  filters: { path: string; op: "eq" | "in" | "exists"; values: string[] }[];
  history_start: number | null;
  history_end: number | null;
  backfill_status: BackfillStatus;
  backfill_cursor: string | null;
  backfill_pages: number;
  backfill_limit: number | null;
  backfill_units: number;
  live_watermark: number;
  live_window_end: number | null;
  live_cursor: string | null;
  live_next_poll_at: number;
  live_polled_at: number | null;
  /** Per phase, per outcome: traces counted. */
  counts: Partial<Record<ImportPhase, Partial<Record<ImportOutcome, number>>>>;
  last_error_code: string | null;
  last_error_message: string | null;
  last_error_at: number | null;
  /** The provider endpoint the last page came from, and why when it is a fallback. */
  provider_endpoint: string | null;
  provider_endpoint_note: string | null;
  next_run_at: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = `stream_id, connection_id, provider, region, external_project_id, workspace_id, activated_at::int AS activated_at, state,
  lifecycle_revision::int AS lifecycle_revision, mapping_revision::int AS mapping_revision, mapping_definition, filters,
  history_start::int AS history_start, history_end::int AS history_end, backfill_status, backfill_cursor, backfill_pages::int AS backfill_pages,
  backfill_limit::int AS backfill_limit, backfill_units::int AS backfill_units, live_watermark::int AS live_watermark,
  live_window_end::int AS live_window_end, live_cursor, live_next_poll_at::int AS live_next_poll_at, live_polled_at::int AS live_polled_at,
  counts, last_error_code, last_error_message, last_error_at::int AS last_error_at, provider_endpoint, provider_endpoint_note, next_run_at::int AS next_run_at,
  created_at::int AS created_at, updated_at::int AS updated_at`;

/** `counts` with the per-outcome numbers of JSON parameter `delta` added under `phase` (SQL parameter references). */
const merged = (phase: string, delta: string) =>
  `counts || jsonb_build_object(${phase}::text, coalesce(counts -> ${phase}::text, '{}'::jsonb) || (SELECT coalesce(jsonb_object_agg(d.k, coalesce((counts -> ${phase}::text ->> d.k)::bigint, 0) + d.v::bigint), '{}'::jsonb) FROM jsonb_each_text(${delta}::text::jsonb) AS d(k, v)))`;

export type CollectionInsert = Omit<
  CollectionRecord,
  | "backfill_cursor"
  | "backfill_pages"
  | "backfill_units"
  | "live_window_end"
  | "live_cursor"
  | "live_polled_at"
  | "counts"
  | "last_error_code"
  | "last_error_message"
  | "last_error_at"
  | "provider_endpoint"
  | "provider_endpoint_note"
  | "updated_at"
>;

export async function insertCollection(tx: Sql, scope: Scope, c: CollectionInsert): Promise<CollectionRecord> {
  const [created] = await tx.query<CollectionRecord>(
    `INSERT INTO data_source_collections (stream_id, org_id, project_id, connection_id, provider, region, external_project_id, workspace_id,
        activated_at, state, lifecycle_revision, mapping_revision, mapping_definition, filters, history_start, history_end, backfill_status,
        backfill_limit, live_watermark, live_next_poll_at, next_run_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::text::jsonb, $14::text::jsonb, $15, $16, $17, $18, $19, $20, $21, $22, $22)
     ON CONFLICT (stream_id) DO NOTHING RETURNING ${COLUMNS}`,
    [
      c.stream_id,
      scope.orgId,
      scope.projectId,
      c.connection_id,
      c.provider,
      c.region,
      c.external_project_id,
      c.workspace_id,
      c.activated_at,
      c.state,
      c.lifecycle_revision,
      c.mapping_revision,
      // As text: JSON the driver must not take for a parameter of its own type.
      JSON.stringify(c.mapping_definition),
      JSON.stringify(c.filters),
      c.history_start,
      c.history_end,
      c.backfill_status,
      c.backfill_limit,
      c.live_watermark,
      c.live_next_poll_at,
      c.next_run_at,
      c.created_at,
    ],
  );
  return created!;
}

export async function findCollection(sql: Sql, scope: Scope, streamId: string): Promise<CollectionRecord | undefined> {
  const [found] = await sql.query<CollectionRecord>(`SELECT ${COLUMNS} FROM data_source_collections WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`, [
    scope.orgId,
    scope.projectId,
    streamId,
  ]);
  return found;
}

/** Active collections whose step may run now: due, and held by no live lease. */
export async function findRunnableCollections(sql: Sql, now: number): Promise<{ orgId: string; projectId: string; streamId: string }[]> {
  return sql.query(
    `SELECT org_id AS "orgId", project_id AS "projectId", stream_id AS "streamId" FROM data_source_collections
      WHERE state = 'active' AND next_run_at <= $1 AND (lease_expires_at IS NULL OR lease_expires_at <= $1) ORDER BY next_run_at`,
    [now],
  );
}

/** Every active collection, due or not: a starting worker makes sure each has its workflow. */
export async function findActiveCollections(sql: Sql): Promise<{ orgId: string; projectId: string; streamId: string }[]> {
  return sql.query(`SELECT org_id AS "orgId", project_id AS "projectId", stream_id AS "streamId" FROM data_source_collections WHERE state = 'active'`);
}

/** Takes the collection's step for `leaseSeconds` under `token` (the holder's own retry takes it over); undefined when it is not active or another holds it. */
export async function claimCollection(
  sql: Sql,
  scope: Scope,
  streamId: string,
  token: string,
  now: number,
  leaseSeconds: number,
): Promise<CollectionRecord | undefined> {
  const [claimed] = await sql.query<CollectionRecord>(
    `UPDATE data_source_collections SET lease_token = $4, lease_expires_at = $5 + $6::bigint
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND state = 'active'
        AND (lease_expires_at IS NULL OR lease_expires_at <= $5 OR lease_token = $4)
      RETURNING ${COLUMNS}`,
    [scope.orgId, scope.projectId, streamId, token, now, leaseSeconds],
  );
  return claimed;
}

/** Gives the step back: due again at `nextRunAt`. */
export async function releaseCollection(sql: Sql, scope: Scope, streamId: string, token: string, nextRunAt: number): Promise<void> {
  await sql.query(
    `UPDATE data_source_collections SET lease_token = NULL, lease_expires_at = NULL, next_run_at = $5
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND lease_token = $4`,
    [scope.orgId, scope.projectId, streamId, token, nextRunAt],
  );
}

/** The embedded database belongs to one process: a lease still held at start-up was that process's, before it stopped. */
export async function expireCollectionLeases(sql: Sql, now: number): Promise<void> {
  await sql.query("UPDATE data_source_collections SET lease_expires_at = $1 WHERE lease_expires_at > $1", [now]);
}

/**
 * In the transaction that imports a trace: counts it and, for the backfill, spends its message units
 * against the budget. Locks the collection row, so a deletion or an operation waits for the import
 * and the next import sees it. Returns `lease_lost` when the step no longer holds an active
 * collection (deleted, paused, stopped, taken over), `over_budget` when the units do not fit.
 */
export async function admitImport(
  tx: Sql,
  scope: Scope,
  streamId: string,
  token: string,
  phase: ImportPhase,
  units: number,
  now: number,
): Promise<"admitted" | "lease_lost" | "over_budget"> {
  const budgeted = phase === "backfill";
  const [row] = await tx.query<{ fits: boolean }>(
    `SELECT (NOT $4 OR backfill_limit IS NULL OR backfill_units + $5 <= backfill_limit) AS fits FROM data_source_collections
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND lease_token = $6 AND state = 'active' FOR UPDATE`,
    [scope.orgId, scope.projectId, streamId, budgeted, units, token],
  );
  if (!row) return "lease_lost";
  if (!row.fits) return "over_budget";
  await tx.query(
    `UPDATE data_source_collections SET counts = ${merged("$4", `'{"imported": 1}'`)}, backfill_units = backfill_units + $5, updated_at = $6
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`,
    [scope.orgId, scope.projectId, streamId, phase, budgeted ? units : 0, now],
  );
  return "admitted";
}

export type OutcomeCounts = Partial<Record<ImportOutcome, number>>;

/** Adds to a phase's counts outside a checkpoint (a retry of held records). */
export async function addCounts(sql: Sql, scope: Scope, streamId: string, phase: ImportPhase, delta: OutcomeCounts): Promise<void> {
  await sql.query(`UPDATE data_source_collections SET counts = ${merged("$4", "$5")} WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`, [
    scope.orgId,
    scope.projectId,
    streamId,
    phase,
    JSON.stringify(delta),
  ]);
}

/** The checkpoint after a committed page of the backfill or of a live window; false when the lease was lost. */
export async function saveCheckpoint(
  sql: Sql,
  scope: Scope,
  streamId: string,
  token: string,
  change:
    | { phase: "backfill"; cursor: string | null; status: BackfillStatus; now: number; delta: OutcomeCounts }
    | {
        phase: "live";
        cursor: string | null;
        windowEnd: number | null;
        watermark: number;
        nextPollAt: number;
        polledAt: number | null;
        now: number;
        delta: OutcomeCounts;
      },
): Promise<boolean> {
  // The page's counts go with its checkpoint: a page re-read after a crash is counted once.
  const params = [scope.orgId, scope.projectId, streamId, token, change.phase, JSON.stringify(change.delta)];
  const saved =
    change.phase === "backfill"
      ? await sql.query(
          `UPDATE data_source_collections SET backfill_cursor = $7, backfill_status = $8, backfill_pages = backfill_pages + 1, updated_at = $9,
                  counts = ${merged("$5", "$6")}
            WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND lease_token = $4 RETURNING stream_id`,
          [...params, change.cursor, change.status, change.now],
        )
      : await sql.query(
          `UPDATE data_source_collections SET live_cursor = $7, live_window_end = $8, live_watermark = $9, live_next_poll_at = $10,
                  live_polled_at = coalesce($11, live_polled_at), updated_at = $12, counts = ${merged("$5", "$6")}
            WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND lease_token = $4 RETURNING stream_id`,
          [...params, change.cursor, change.windowEnd, change.watermark, change.nextPollAt, change.polledAt, change.now],
        );
  return saved.length > 0;
}

/** Makes the active collections of a connection due now (its credential was rotated); their stream ids. */
export async function wakeConnectionCollections(sql: Sql, scope: Scope, connectionId: string, now: number): Promise<string[]> {
  const rows = await sql.query<{ stream_id: string }>(
    `UPDATE data_source_collections SET next_run_at = least(next_run_at, $4)
      WHERE org_id = $1 AND project_id = $2 AND connection_id = $3 AND state = 'active' RETURNING stream_id`,
    [scope.orgId, scope.projectId, connectionId, now],
  );
  return rows.map((row) => row.stream_id);
}

/** Records the provider endpoint the collection's pages come from (and the note saying why, for a fallback). */
export async function recordEndpoint(sql: Sql, scope: Scope, streamId: string, endpoint: string, note: string | null): Promise<void> {
  await sql.query(
    `UPDATE data_source_collections SET provider_endpoint = $4, provider_endpoint_note = $5 WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`,
    [scope.orgId, scope.projectId, streamId, endpoint, note],
  );
}

/** Records (or clears, with null) the collection's last error. */
export async function recordError(sql: Sql, scope: Scope, streamId: string, error: { code: string; message: string } | null, now: number): Promise<void> {
  await sql.query(
    `UPDATE data_source_collections SET last_error_code = $4, last_error_message = $5, last_error_at = CASE WHEN $4::text IS NULL THEN last_error_at ELSE $6 END
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`,
    [scope.orgId, scope.projectId, streamId, error?.code ?? null, error?.message ?? null, now],
  );
}

/**
 * A control change read at `expectedRevision` (an operation, an extension, a filter edit, a mapping
 * promotion, a retry): applies `set` (SQL assignments over $5..) and advances the lifecycle
 * revision; the collection is due at once. Undefined when the revision moved.
 */
export async function advanceLifecycle(
  tx: Sql,
  scope: Scope,
  streamId: string,
  expectedRevision: number,
  set: string,
  params: readonly unknown[],
  now: number,
): Promise<CollectionRecord | undefined> {
  const [updated] = await tx.query<CollectionRecord>(
    `UPDATE data_source_collections SET ${set ? `${set}, ` : ""}lifecycle_revision = lifecycle_revision + 1, updated_at = $${params.length + 5},
            next_run_at = least(next_run_at, $${params.length + 5})
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND lifecycle_revision = $4 RETURNING ${COLUMNS}`,
    [scope.orgId, scope.projectId, streamId, expectedRevision, ...params, now],
  );
  return updated;
}

/** The connection's shared cooldown after a provider's rate limit: every read of it waits until then. */
export async function setConnectionCooldown(sql: Sql, scope: Scope, connectionId: string, until: number): Promise<void> {
  await sql.query(
    "UPDATE data_source_connections SET cooldown_until = greatest(coalesce(cooldown_until, 0), $4) WHERE org_id = $1 AND project_id = $2 AND connection_id = $3",
    [scope.orgId, scope.projectId, connectionId, until],
  );
}

export async function connectionCooldown(sql: Sql, scope: Scope, connectionId: string): Promise<number | null> {
  const [row] = await sql.query<{ until: number | null }>(
    "SELECT cooldown_until::int AS until FROM data_source_connections WHERE org_id = $1 AND project_id = $2 AND connection_id = $3",
    [scope.orgId, scope.projectId, connectionId],
  );
  return row?.until ?? null;
}

/** Locks the stream's collection for the transaction (a deletion waits for an import in flight); its lifecycle revision, null when none. */
export async function lockCollection(tx: Sql, scope: Scope, streamId: string): Promise<number | null> {
  const [row] = await tx.query<{ revision: number }>(
    "SELECT lifecycle_revision::int AS revision FROM data_source_collections WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 FOR UPDATE",
    [scope.orgId, scope.projectId, streamId],
  );
  return row?.revision ?? null;
}
