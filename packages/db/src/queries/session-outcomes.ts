import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { Params } from "./params.ts";

export interface SessionOutcomeRecord {
  outcome_id: string;
  session_id: string;
  user_id: string;
  source: string;
  outcome: "success" | "failure" | "unknown";
  occurred_at: number;
  label: string | null;
  value: number | null;
  metadata: Record<string, unknown> | null;
  is_inferred: boolean;
  outcome_revision: number | null;
  outcome_contract_digest: string | null;
  finalized_trajectory_digest: string | null;
  trajectory_through_request_id: string | null;
}

/** A row as it is listed: with the time it was written. */
export type ListedSessionOutcome = SessionOutcomeRecord & { created_at: number };

const COLUMNS = `outcome_id, session_id, user_id, source, outcome, occurred_at, label, value, metadata, is_inferred,
  outcome_revision, outcome_contract_digest, finalized_trajectory_digest, trajectory_through_request_id`;

/** The session's requests in the contract's order (created_at, request_id): the first names its user and source. */
export async function sessionRequests(sql: Sql, scope: Scope, sessionId: string): Promise<{ request_id: string; user_id: string; source: string }[]> {
  return sql.query(
    `SELECT request_id, user_id, source FROM requests WHERE org_id = $1 AND project_id = $2 AND session_id = $3 ORDER BY created_at, request_id`,
    [scope.orgId, scope.projectId, sessionId],
  );
}

/** Serialises every recording for one session until the transaction `tx` ends (first reports race on an empty table). */
export async function lockSessionOutcome(tx: Sql, scope: Scope, sessionId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`session_outcome:${scope.orgId}:${scope.projectId}:${sessionId}`]);
}

export async function findActiveOutcome(sql: Sql, scope: Scope, sessionId: string): Promise<SessionOutcomeRecord | null> {
  const [row] = await sql.query<SessionOutcomeRecord>(
    `SELECT ${COLUMNS} FROM session_outcomes WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND archived_at IS NULL`,
    [scope.orgId, scope.projectId, sessionId],
  );
  return row ?? null;
}

export async function insertOutcome(tx: Sql, scope: Scope, row: SessionOutcomeRecord, now: number): Promise<void> {
  await tx.query(
    `INSERT INTO session_outcomes (org_id, project_id, ${COLUMNS}, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16, $17)`,
    [
      scope.orgId,
      scope.projectId,
      row.outcome_id,
      row.session_id,
      row.user_id,
      row.source,
      row.outcome,
      row.occurred_at,
      row.label,
      row.value,
      row.metadata,
      row.is_inferred,
      row.outcome_revision,
      row.outcome_contract_digest,
      row.finalized_trajectory_digest,
      row.trajectory_through_request_id,
      now,
    ],
  );
}

/** Moves a displaced (inferred) row out of the session's active place. */
export async function archiveOutcome(tx: Sql, scope: Scope, outcomeId: string, now: number): Promise<void> {
  await tx.query("UPDATE session_outcomes SET archived_at = $4 WHERE org_id = $1 AND project_id = $2 AND outcome_id = $3", [
    scope.orgId,
    scope.projectId,
    outcomeId,
    now,
  ]);
}

export interface OutcomeFilters {
  sessionIds?: string[] | undefined;
  userId?: string | undefined;
  source?: string | undefined;
  outcome?: string | undefined;
  label?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/** The project's active outcomes, newest occurrence first; the time bounds are inclusive. */
export async function listOutcomes(sql: Sql, scope: Scope, filters: OutcomeFilters, limit: number, offset = 0): Promise<ListedSessionOutcome[]> {
  const params = new Params();
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`, "archived_at IS NULL"];
  if (filters.sessionIds !== undefined) where.push(`session_id = ANY(${params.add(filters.sessionIds)}::text[])`);
  if (filters.userId !== undefined) where.push(`user_id = ${params.add(filters.userId)}`);
  // An empty source filter is no filter, as everywhere else in the contract.
  if (filters.source) where.push(`source = ${params.add(filters.source)}`);
  if (filters.outcome !== undefined) where.push(`outcome = ${params.add(filters.outcome)}`);
  if (filters.label !== undefined) where.push(`label = ${params.add(filters.label)}`);
  if (filters.startTime !== undefined) where.push(`occurred_at >= ${params.add(filters.startTime)}`);
  if (filters.endTime !== undefined) where.push(`occurred_at <= ${params.add(filters.endTime)}`);
  return sql.query<ListedSessionOutcome>(
    `SELECT ${COLUMNS}, created_at FROM session_outcomes WHERE ${where.join(" AND ")}
      ORDER BY occurred_at DESC, outcome_id LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
    params.values,
  );
}

/**
 * Refreshes an inferred row as its session went on: what it says, its digests and the last request
 * it covers change; its outcome_id and revision do not.
 */
export async function refreshInferredOutcome(tx: Sql, scope: Scope, row: SessionOutcomeRecord): Promise<void> {
  await tx.query(
    `UPDATE session_outcomes SET outcome = $4, occurred_at = $5, metadata = $6::jsonb, outcome_contract_digest = $7,
        finalized_trajectory_digest = $8, trajectory_through_request_id = $9
      WHERE org_id = $1 AND project_id = $2 AND outcome_id = $3 AND is_inferred AND archived_at IS NULL`,
    [
      scope.orgId,
      scope.projectId,
      row.outcome_id,
      row.outcome,
      row.occurred_at,
      row.metadata,
      row.outcome_contract_digest,
      row.finalized_trajectory_digest,
      row.trajectory_through_request_id,
    ],
  );
}
