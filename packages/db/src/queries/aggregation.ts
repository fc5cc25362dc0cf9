import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import {
  claimRun,
  completeRun,
  expireAllLeases,
  failRun,
  findRunnableRuns,
  type LeasedRunState,
  type LeasedRunTable,
  type RunStatus,
  retryRun,
} from "./leased-runs.ts";

export type OperationStatus = RunStatus;
export const UNFINISHED: readonly OperationStatus[] = ["queued", "running", "retrying"];

export interface OperationRecord extends LeasedRunState {
  operation_id: string;
  request_id: string;
  agent_version: string;
}

const COLUMNS = `operation_id, org_id, project_id, request_id, agent_version, status, attempts, error_code, result, retry_at,
  created_at, updated_at, finished_at`;

/**
 * Inserts a queued operation unless the request id is taken or the agent version has an unfinished
 * one (the partial unique index decides under concurrency); returns it, or nothing when refused.
 */
export async function insertOperation(
  sql: Sql,
  scope: Scope,
  operation: { operationId: string; requestId: string; agentVersion: string },
  now: number,
): Promise<OperationRecord | undefined> {
  const [row] = await sql.query<OperationRecord>(
    `INSERT INTO aggregation_operations (operation_id, org_id, project_id, request_id, agent_version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
    [operation.operationId, scope.orgId, scope.projectId, operation.requestId, operation.agentVersion, now],
  );
  return row;
}

export async function findOperation(sql: Sql, scope: Scope, operationId: string): Promise<OperationRecord | undefined> {
  const [row] = await sql.query<OperationRecord>(`SELECT ${COLUMNS} FROM aggregation_operations WHERE org_id = $1 AND project_id = $2 AND operation_id = $3`, [
    scope.orgId,
    scope.projectId,
    operationId,
  ]);
  return row;
}

export async function findOperationByRequest(sql: Sql, scope: Scope, requestId: string): Promise<OperationRecord | undefined> {
  const [row] = await sql.query<OperationRecord>(`SELECT ${COLUMNS} FROM aggregation_operations WHERE org_id = $1 AND project_id = $2 AND request_id = $3`, [
    scope.orgId,
    scope.projectId,
    requestId,
  ]);
  return row;
}

/** The operations' lease and attempt columns, moved by the shared queries of durable runs. */
const OPERATIONS: LeasedRunTable = { name: "aggregation_operations", id: "operation_id", columns: COLUMNS };

/** Takes an operation to run it (see claimRun); returns it with its new attempt counted, or nothing. */
export const claimOperation = (sql: Sql, operationId: string, leaseToken: string, now: number, leaseSeconds: number) =>
  claimRun<OperationRecord>(sql, OPERATIONS, operationId, leaseToken, now, leaseSeconds);

/** Puts a running operation back to wait for a retry; only its lease holder may. */
export const scheduleRetry = (sql: Sql, operationId: string, leaseToken: string, change: { errorCode: string; retryAt: number }, now: number) =>
  retryRun(sql, OPERATIONS, operationId, leaseToken, change, now);

/** Ends a running operation as failed with a safe error code; only its lease holder may. */
export const failOperation = (sql: Sql, operationId: string, leaseToken: string, errorCode: string, now: number) =>
  failRun(sql, OPERATIONS, operationId, leaseToken, errorCode, now);

/**
 * Marks an operation succeeded with its result, in the transaction that writes its output, only
 * while the caller still holds its lease. False: the lease was lost or the operation was cancelled,
 * and the transaction must roll back.
 */
export const completeOperation = (sql: Sql, operationId: string, leaseToken: string, result: Record<string, number>, now: number) =>
  completeRun(sql, OPERATIONS, operationId, leaseToken, result, now);

/** Operations a worker may take now: queued, due for a retry, or held under an expired lease. */
export async function findRunnableOperations(sql: Sql, now: number): Promise<(Scope & { operationId: string })[]> {
  return (await findRunnableRuns(sql, OPERATIONS, now)).map(({ id, ...scope }) => ({ ...scope, operationId: id }));
}

/** Lets every running operation be taken again now (embedded start-up: a held lease is a crash's). */
export const expireOperationLeases = (sql: Sql, now: number) => expireAllLeases(sql, OPERATIONS, now);

/** A user playbook as aggregation reads it: its text, when it last changed, and its vector. */
export interface AggregationInput {
  user_playbook_id: number;
  trigger: string;
  content: string;
  rationale: string;
  last_modified_timestamp: number;
  embedding: number[];
}

/**
 * The CURRENT user playbooks of an agent version that aggregation may use: embedded by the
 * current model, and not learned from a request published with skip_aggregation.
 */
export async function aggregationInputs(sql: Sql, scope: Scope, agentVersion: string, embeddingModel: string): Promise<AggregationInput[]> {
  const rows = await sql.query<Omit<AggregationInput, "embedding"> & { embedding: string }>(
    `SELECT p.user_playbook_id, p.trigger, p.content, p.rationale, p.last_modified_timestamp, p.embedding::text AS embedding
     FROM user_playbooks p
     WHERE p.org_id = $1 AND p.project_id = $2 AND p.agent_version = $3 AND p.status = 'CURRENT' AND p.embedding_model = $4
       AND NOT EXISTS (SELECT 1 FROM requests r WHERE r.org_id = p.org_id AND r.project_id = p.project_id
         AND r.request_id = p.request_id AND r.skip_aggregation)
     ORDER BY p.user_playbook_id`,
    [scope.orgId, scope.projectId, agentVersion, embeddingModel],
  );
  return rows.map((row) => ({ ...row, embedding: JSON.parse(row.embedding) as number[] }));
}

/**
 * Of the inputs an operation captured, those no longer current as captured (deleted, archived or
 * edited since). Locks the rest against change until the transaction ends.
 */
export async function retiredInputs(sql: Sql, scope: Scope, captured: { user_playbook_id: number; last_modified_timestamp: number }[]): Promise<number[]> {
  if (captured.length === 0) return [];
  const rows = await sql.query<{ user_playbook_id: number }>(
    `SELECT c.id AS user_playbook_id FROM unnest($3::int8[], $4::int8[]) AS c(id, modified)
     LEFT JOIN (SELECT user_playbook_id, last_modified_timestamp FROM user_playbooks
                WHERE org_id = $1 AND project_id = $2 AND status = 'CURRENT' AND user_playbook_id = ANY($3::int8[]) FOR KEY SHARE) p
       ON p.user_playbook_id = c.id AND p.last_modified_timestamp = c.modified
     WHERE p.user_playbook_id IS NULL`,
    [scope.orgId, scope.projectId, captured.map((c) => c.user_playbook_id), captured.map((c) => c.last_modified_timestamp)],
  );
  return rows.map((row) => row.user_playbook_id);
}

/** The clusters the last successful run of an agent version found, by key, with the agent playbook each produced. */
export async function previousClusters(sql: Sql, scope: Scope, agentVersion: string): Promise<Map<string, number | null>> {
  const rows = await sql.query<{ cluster_key: string; agent_playbook_id: number | null }>(
    "SELECT cluster_key, agent_playbook_id FROM aggregation_clusters WHERE org_id = $1 AND project_id = $2 AND agent_version = $3",
    [scope.orgId, scope.projectId, agentVersion],
  );
  return new Map(rows.map((row) => [row.cluster_key, row.agent_playbook_id]));
}

/** Replaces the remembered clusters of an agent version with those of a run that just succeeded. */
export async function replaceClusters(
  sql: Sql,
  scope: Scope,
  agentVersion: string,
  clusters: { clusterKey: string; agentPlaybookId: number | null }[],
  now: number,
): Promise<void> {
  await sql.query("DELETE FROM aggregation_clusters WHERE org_id = $1 AND project_id = $2 AND agent_version = $3", [
    scope.orgId,
    scope.projectId,
    agentVersion,
  ]);
  if (clusters.length === 0) return;
  await sql.query(
    `INSERT INTO aggregation_clusters (org_id, project_id, agent_version, cluster_key, agent_playbook_id, created_at)
     SELECT $1, $2, $3, c.key, c.playbook, $6 FROM unnest($4::text[], $5::int8[]) AS c(key, playbook)`,
    [scope.orgId, scope.projectId, agentVersion, clusters.map((c) => c.clusterKey), clusters.map((c) => c.agentPlaybookId), now],
  );
}
