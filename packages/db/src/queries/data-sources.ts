import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** A project's connection to a trace provider (migration 0028); the credential fields sealed. */
export interface ConnectionRecord {
  connection_id: string;
  name: string;
  provider: string;
  region: string;
  sealed_credentials: string;
  workspace_id: string | null;
  revision: number;
  created_at: number;
  updated_at: number;
  draft_expires_at: number | null;
}

/** The external project a connection selected, and its traffic filters. */
export interface StreamRecord {
  stream_id: string;
  connection_id: string;
  external_project_id: string;
  external_project_name: string;
  workspace_id: string | null;
  filters: { path: string; op: "eq" | "in" | "exists"; values: string[] }[];
  revision: number;
  history: boolean;
  history_start: number | null;
  history_end: number | null;
  created_at: number;
  updated_at: number;
}

const CONNECTION_COLUMNS =
  "connection_id, name, provider, region, sealed_credentials, workspace_id, revision::int AS revision, created_at::int AS created_at, updated_at::int AS updated_at, draft_expires_at::int AS draft_expires_at";
const STREAM_COLUMNS =
  "stream_id, connection_id, external_project_id, external_project_name, workspace_id, filters, revision::int AS revision, history, history_start::int AS history_start, history_end::int AS history_end, created_at::int AS created_at, updated_at::int AS updated_at";
/** A connection that still holds its slot: activated, or a setup draft that has not expired. */
const LIVE = "(draft_expires_at IS NULL OR draft_expires_at > $3)";

/**
 * Serializes the connection writes of one project until the transaction ends: two creates racing
 * for the last slot see each other's row.
 */
export async function lockProjectConnections(tx: Sql, scope: Scope): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`data_sources:${scope.orgId}:${scope.projectId}`]);
}

/** Setup drafts past their expiry give their slot back: they and their streams are removed. */
export async function deleteExpiredDrafts(tx: Sql, scope: Scope, now: number): Promise<void> {
  await tx.query("DELETE FROM data_source_connections WHERE org_id = $1 AND project_id = $2 AND draft_expires_at <= $3", [scope.orgId, scope.projectId, now]);
}

export async function countLiveConnections(sql: Sql, scope: Scope, now: number): Promise<number> {
  const [row] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM data_source_connections WHERE org_id = $1 AND project_id = $2 AND ${LIVE}`, [
    scope.orgId,
    scope.projectId,
    now,
  ]);
  return row!.n;
}

export async function insertConnection(tx: Sql, scope: Scope, record: ConnectionRecord): Promise<void> {
  await tx.query(
    `INSERT INTO data_source_connections (connection_id, org_id, project_id, name, provider, region, sealed_credentials, workspace_id, revision, created_at, updated_at, draft_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      record.connection_id,
      scope.orgId,
      scope.projectId,
      record.name,
      record.provider,
      record.region,
      record.sealed_credentials,
      record.workspace_id,
      record.revision,
      record.created_at,
      record.updated_at,
      record.draft_expires_at,
    ],
  );
}

/** The project's live connections, oldest first. */
export async function listConnections(sql: Sql, scope: Scope, now: number): Promise<ConnectionRecord[]> {
  return sql.query<ConnectionRecord>(
    `SELECT ${CONNECTION_COLUMNS} FROM data_source_connections WHERE org_id = $1 AND project_id = $2 AND ${LIVE} ORDER BY created_at, connection_id`,
    [scope.orgId, scope.projectId, now],
  );
}

export async function findConnection(sql: Sql, scope: Scope, connectionId: string, now: number): Promise<ConnectionRecord | undefined> {
  const [found] = await sql.query<ConnectionRecord>(
    `SELECT ${CONNECTION_COLUMNS} FROM data_source_connections WHERE org_id = $1 AND project_id = $2 AND ${LIVE} AND connection_id = $4`,
    [scope.orgId, scope.projectId, now, connectionId],
  );
  return found;
}

/**
 * Advances a connection's revision from `expectedRevision`, with its new sealed credentials and
 * workspace when given; undefined when the revision moved (or the connection is gone).
 */
export async function advanceConnection(
  tx: Sql,
  scope: Scope,
  connectionId: string,
  expectedRevision: number,
  change: { sealed_credentials?: string; workspace_id: string | null; updated_at: number },
): Promise<ConnectionRecord | undefined> {
  const [updated] = await tx.query<ConnectionRecord>(
    `UPDATE data_source_connections
        SET revision = revision + 1, sealed_credentials = coalesce($5, sealed_credentials), workspace_id = $6, updated_at = $7
      WHERE org_id = $1 AND project_id = $2 AND connection_id = $3 AND revision = $4
      RETURNING ${CONNECTION_COLUMNS}`,
    [scope.orgId, scope.projectId, connectionId, expectedRevision, change.sealed_credentials ?? null, change.workspace_id, change.updated_at],
  );
  return updated;
}

/** Removes a connection read at `expectedRevision` (its stream goes with it); false when the revision moved. */
export async function deleteConnection(tx: Sql, scope: Scope, connectionId: string, expectedRevision: number): Promise<boolean> {
  const deleted = await tx.query<{ connection_id: string }>(
    "DELETE FROM data_source_connections WHERE org_id = $1 AND project_id = $2 AND connection_id = $3 AND revision = $4 RETURNING connection_id",
    [scope.orgId, scope.projectId, connectionId, expectedRevision],
  );
  return deleted.length > 0;
}

/**
 * Saves the connection's stream selection: the first creates the stream at revision 1, a later one
 * replaces project and filters and advances the stream revision (samples of the old selection go stale).
 */
export async function saveStream(
  tx: Sql,
  scope: Scope,
  stream: Omit<StreamRecord, "revision" | "history" | "history_start" | "history_end">,
): Promise<StreamRecord> {
  const [saved] = await tx.query<StreamRecord>(
    `INSERT INTO data_source_streams (stream_id, org_id, project_id, connection_id, external_project_id, external_project_name, workspace_id, filters, revision, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, 1, $9, $10)
     ON CONFLICT (connection_id) DO UPDATE
        SET external_project_id = excluded.external_project_id, external_project_name = excluded.external_project_name,
            workspace_id = excluded.workspace_id, filters = excluded.filters, revision = data_source_streams.revision + 1, updated_at = excluded.updated_at
     RETURNING ${STREAM_COLUMNS}`,
    [
      stream.stream_id,
      scope.orgId,
      scope.projectId,
      stream.connection_id,
      stream.external_project_id,
      stream.external_project_name,
      stream.workspace_id,
      // As text: a list parameter would otherwise be sent as a PostgreSQL array.
      JSON.stringify(stream.filters),
      stream.created_at,
      stream.updated_at,
    ],
  );
  return saved!;
}

/** The streams of the project's live connections ($1, $2: the scope; $3: now). */
const LIVE_STREAMS = `SELECT ${STREAM_COLUMNS.split(", ")
  .map((column) => `s.${column}`)
  .join(", ")}
   FROM data_source_streams s JOIN data_source_connections c USING (connection_id)
  WHERE s.org_id = $1 AND s.project_id = $2 AND (c.draft_expires_at IS NULL OR c.draft_expires_at > $3)`;

export async function listStreams(sql: Sql, scope: Scope, now: number): Promise<StreamRecord[]> {
  return sql.query<StreamRecord>(`${LIVE_STREAMS} ORDER BY s.created_at, s.stream_id`, [scope.orgId, scope.projectId, now]);
}

export async function findStreamOfConnection(sql: Sql, scope: Scope, connectionId: string): Promise<StreamRecord | undefined> {
  const [found] = await sql.query<StreamRecord>(
    `SELECT ${STREAM_COLUMNS} FROM data_source_streams WHERE org_id = $1 AND project_id = $2 AND connection_id = $3`,
    [scope.orgId, scope.projectId, connectionId],
  );
  return found;
}

/** A stream of a live connection, by its id. */
export async function findStream(sql: Sql, scope: Scope, streamId: string, now: number): Promise<StreamRecord | undefined> {
  const [found] = await sql.query<StreamRecord>(`${LIVE_STREAMS} AND s.stream_id = $4`, [scope.orgId, scope.projectId, now, streamId]);
  return found;
}

/** Saves the history draft of a stream read at `expectedRevision`, advancing it; undefined when the revision moved. */
export async function saveHistoryDraft(
  tx: Sql,
  scope: Scope,
  streamId: string,
  expectedRevision: number,
  draft: { history: boolean; history_start: number | null; history_end: number | null; updated_at: number },
): Promise<StreamRecord | undefined> {
  const [saved] = await tx.query<StreamRecord>(
    `UPDATE data_source_streams SET history = $5, history_start = $6, history_end = $7, revision = revision + 1, updated_at = $8
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND revision = $4
      RETURNING ${STREAM_COLUMNS}`,
    [scope.orgId, scope.projectId, streamId, expectedRevision, draft.history, draft.history_start, draft.history_end, draft.updated_at],
  );
  return saved;
}

/** A stream's mapping draft (migration 0028); absent until the first save. */
export interface MappingDraftRecord {
  definition: unknown;
  revision: number;
  validated_revision: number | null;
  updated_at: number;
}

export async function findMappingDraft(sql: Sql, scope: Scope, streamId: string): Promise<MappingDraftRecord | undefined> {
  const [found] = await sql.query<MappingDraftRecord>(
    `SELECT definition, revision::int AS revision, validated_revision::int AS validated_revision, updated_at::int AS updated_at
       FROM data_source_mappings WHERE org_id = $1 AND project_id = $2 AND stream_id = $3`,
    [scope.orgId, scope.projectId, streamId],
  );
  return found;
}

/**
 * Saves a mapping draft over revision `expectedRevision` (0: there is none yet): the revision
 * advances and validation is cleared. Undefined when the draft moved meanwhile.
 */
export async function saveMappingDraft(
  tx: Sql,
  scope: Scope,
  streamId: string,
  expectedRevision: number,
  definition: unknown,
  now: number,
): Promise<MappingDraftRecord | undefined> {
  const returning = "RETURNING definition, revision::int AS revision, validated_revision::int AS validated_revision, updated_at::int AS updated_at";
  // As text: the definition is JSON the driver must not take for a parameter of its own type.
  const params = [scope.orgId, scope.projectId, streamId, JSON.stringify(definition), now];
  if (expectedRevision === 0) {
    const [created] = await tx.query<MappingDraftRecord>(
      `INSERT INTO data_source_mappings (stream_id, org_id, project_id, definition, revision, validated_revision, updated_at)
       VALUES ($3, $1, $2, $4::text::jsonb, 1, NULL, $5) ON CONFLICT (stream_id) DO NOTHING ${returning}`,
      params,
    );
    return created;
  }
  const [updated] = await tx.query<MappingDraftRecord>(
    `UPDATE data_source_mappings SET definition = $4::text::jsonb, revision = revision + 1, validated_revision = NULL, updated_at = $5
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND revision = $6 ${returning}`,
    [...params, expectedRevision],
  );
  return updated;
}

/** Marks the draft validated at `revision`; false when it moved meanwhile. */
export async function markMappingValidated(sql: Sql, scope: Scope, streamId: string, revision: number): Promise<boolean> {
  const marked = await sql.query(
    "UPDATE data_source_mappings SET validated_revision = revision WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND revision = $4 RETURNING stream_id",
    [scope.orgId, scope.projectId, streamId, revision],
  );
  return marked.length > 0;
}

/** An activated connection is no longer a setup draft: it keeps its slot without expiring. */
export async function keepConnection(tx: Sql, scope: Scope, connectionId: string): Promise<void> {
  await tx.query("UPDATE data_source_connections SET draft_expires_at = NULL WHERE org_id = $1 AND project_id = $2 AND connection_id = $3", [
    scope.orgId,
    scope.projectId,
    connectionId,
  ]);
}

/** A live-filter edit of an activated stream: new filters, the revision advances. Undefined when the revision moved. */
export async function replaceStreamFilters(
  tx: Sql,
  scope: Scope,
  streamId: string,
  expectedRevision: number,
  filters: StreamRecord["filters"],
  now: number,
): Promise<StreamRecord | undefined> {
  const [saved] = await tx.query<StreamRecord>(
    `UPDATE data_source_streams SET filters = $5::text::jsonb, revision = revision + 1, updated_at = $6
      WHERE org_id = $1 AND project_id = $2 AND stream_id = $3 AND revision = $4 RETURNING ${STREAM_COLUMNS}`,
    [scope.orgId, scope.projectId, streamId, expectedRevision, JSON.stringify(filters), now],
  );
  return saved;
}
