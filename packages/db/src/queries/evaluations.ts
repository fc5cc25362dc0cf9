import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { inStatements } from "./in-statements.ts";
import type { InteractionRecord } from "./interactions.ts";
import { Params } from "./params.ts";

/** A session sampled for evaluation, waiting for its inactivity delay or graded. */
export interface EvaluationSessionRecord {
  session_id: string;
  user_id: string;
  source: string;
  agent_version: string;
  evaluation_only: boolean;
  success_sampled: boolean;
  learning_sampled: boolean;
  has_shadow: boolean;
  last_activity_at: number;
  due_at: number;
  status: "waiting" | "graded";
  failure: string | null;
  attempts: number;
  retry_at: number | null;
}

/** The columns of an EvaluationSessionRecord, as a claim (session-timers.ts) returns them. */
export const EVALUATION_SESSION_COLUMNS = `session_id, user_id, source, agent_version, evaluation_only, success_sampled, learning_sampled, has_shadow,
  last_activity_at, due_at, status, failure, attempts, retry_at`;

export interface SessionActivity {
  sessionId: string;
  userId: string;
  source: string;
  agentVersion: string;
  evaluationOnly: boolean;
  successSampled: boolean;
  learningSampled: boolean;
  hasShadow: boolean;
  dueAt: number;
}

/**
 * Notes a publish of a session that some evaluation wants: the first publish creates the row with
 * its sampling, later ones move the deadline (and put a graded session back to waiting, so it is
 * graded again). Returns true when the session was not waiting before: its orchestrator must be told.
 */
export async function noteSessionActivity(tx: Sql, scope: Scope, activity: SessionActivity, now: number): Promise<boolean> {
  const [row] = await tx.query<{ was_waiting: boolean | null }>(
    `WITH prior AS (
       SELECT status FROM evaluation_sessions WHERE org_id = $1 AND project_id = $2 AND session_id = $3 FOR UPDATE
     )
     INSERT INTO evaluation_sessions AS e (org_id, project_id, session_id, user_id, source, agent_version, evaluation_only,
       success_sampled, learning_sampled, has_shadow, last_activity_at, due_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $11)
     ON CONFLICT (org_id, project_id, session_id) DO UPDATE SET
       agent_version = EXCLUDED.agent_version,
       has_shadow = e.has_shadow OR EXCLUDED.has_shadow,
       last_activity_at = greatest(e.last_activity_at, EXCLUDED.last_activity_at),
       due_at = greatest(e.due_at, EXCLUDED.due_at),
       status = 'waiting',
       attempts = CASE WHEN e.status = 'graded' THEN 0 ELSE e.attempts END
     RETURNING (SELECT status = 'waiting' FROM prior) AS was_waiting`,
    [
      scope.orgId,
      scope.projectId,
      activity.sessionId,
      activity.userId,
      activity.source,
      activity.agentVersion,
      activity.evaluationOnly,
      activity.successSampled,
      activity.learningSampled,
      activity.hasShadow,
      now,
      activity.dueAt,
    ],
  );
  return row?.was_waiting !== true;
}

export async function countWaitingSessions(sql: Sql, scope: Scope): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM evaluation_sessions WHERE org_id = $1 AND project_id = $2 AND status = 'waiting'",
    [scope.orgId, scope.projectId],
  );
  return row!.n;
}

/** A session's request, in the contract's order (created_at, request_id). */
export interface SessionRequestRecord {
  request_id: string;
  user_id: string;
  source: string;
  agent_version: string;
  evaluation_only: boolean;
  created_at: number;
}

export async function sessionRequestsInOrder(sql: Sql, scope: Scope, sessionId: string): Promise<SessionRequestRecord[]> {
  return sql.query(
    `SELECT request_id, user_id, source, agent_version, evaluation_only, created_at FROM requests
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3 ORDER BY created_at, request_id`,
    [scope.orgId, scope.projectId, sessionId],
  );
}

/** A session's first request, or none: what a session's user, source and start are. */
export async function firstRequestOfSession(sql: Sql, scope: Scope, sessionId: string): Promise<SessionRequestRecord | undefined> {
  const [row] = await sql.query<SessionRequestRecord>(
    `SELECT request_id, user_id, source, agent_version, evaluation_only, created_at FROM requests
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3 ORDER BY created_at, request_id LIMIT 1`,
    [scope.orgId, scope.projectId, sessionId],
  );
  return row;
}

/** A stored agent success verdict. */
export interface SuccessResultRecord {
  result_id: number;
  user_id: string;
  session_id: string;
  agent_version: string;
  source: string;
  evaluation_only: boolean;
  evaluation_name: string | null;
  origin: "sampled" | "on_demand" | "regenerate";
  is_success: boolean;
  success_score: number;
  failure_type: string | null;
  failure_reason: string | null;
  number_of_correction_per_session: number;
  user_turns_to_resolution: number | null;
  is_escalated: boolean;
  regular_vs_shadow: string | null;
  trajectory_through_request_id: string | null;
  trajectory_interaction_count: number;
  judge_prompt: string;
  session_started_at: number;
  created_at: number;
}

export type SuccessResultInsert = Omit<SuccessResultRecord, "result_id" | "created_at"> & {
  retrieved_learning_refs: string[];
  cited_learning_refs: string[];
  model: string;
};

const RESULT_COLUMNS = `result_id, user_id, session_id, agent_version, source, evaluation_only, evaluation_name, origin, is_success, success_score,
  failure_type, failure_reason, number_of_correction_per_session, user_turns_to_resolution, is_escalated, regular_vs_shadow,
  trajectory_through_request_id, trajectory_interaction_count, judge_prompt, session_started_at, created_at`;

/** Saves a session's verdict as its current one (the one before is superseded); returns its id. */
export async function insertSuccessResult(tx: Sql, scope: Scope, result: SuccessResultInsert, now: number): Promise<number> {
  // One writer of a session's current verdict at a time (a sampled grade, a regrade and grades on
  // demand of other agent versions may meet): without it, a second writer's UPDATE waits on the row
  // the first superseded, skips it, misses the first's new row and inserts a second current one.
  await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [JSON.stringify(["current_verdict", scope.orgId, scope.projectId, result.session_id])]);
  await tx.query(
    "UPDATE agent_success_evaluations SET superseded_at = $4 WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND superseded_at IS NULL",
    [scope.orgId, scope.projectId, result.session_id, now],
  );
  const [row] = await tx.query<{ result_id: number }>(
    `INSERT INTO agent_success_evaluations (org_id, project_id, session_id, user_id, source, agent_version, evaluation_only, evaluation_name, origin,
       is_success, success_score, failure_type, failure_reason, number_of_correction_per_session, user_turns_to_resolution, is_escalated,
       regular_vs_shadow, retrieved_learning_refs, cited_learning_refs, trajectory_through_request_id, trajectory_interaction_count,
       judge_prompt, model, session_started_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::text[], $19::text[], $20, $21, $22, $23, $24, $25)
     RETURNING result_id`,
    [
      scope.orgId,
      scope.projectId,
      result.session_id,
      result.user_id,
      result.source,
      result.agent_version,
      result.evaluation_only,
      result.evaluation_name,
      result.origin,
      result.is_success,
      result.success_score,
      result.failure_type,
      result.failure_reason,
      result.number_of_correction_per_session,
      result.user_turns_to_resolution,
      result.is_escalated,
      result.regular_vs_shadow,
      result.retrieved_learning_refs,
      result.cited_learning_refs,
      result.trajectory_through_request_id,
      result.trajectory_interaction_count,
      result.judge_prompt,
      result.model,
      result.session_started_at,
      now,
    ],
  );
  return row!.result_id;
}

export interface SuccessResultFilters {
  agentVersion?: string | undefined;
  userId?: string | undefined;
  sessionId?: string | undefined;
  source?: string | undefined;
  isSuccess?: boolean | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/** The current verdict of each session, newest first; the time bounds (inclusive) are on created_at. */
export async function listSuccessResults(sql: Sql, scope: Scope, filters: SuccessResultFilters, limit: number, offset: number): Promise<SuccessResultRecord[]> {
  const params = new Params();
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`, "superseded_at IS NULL"];
  if (filters.agentVersion !== undefined) where.push(`agent_version = ${params.add(filters.agentVersion)}`);
  if (filters.userId !== undefined) where.push(`user_id = ${params.add(filters.userId)}`);
  if (filters.sessionId !== undefined) where.push(`session_id = ${params.add(filters.sessionId)}`);
  if (filters.source) where.push(`source = ${params.add(filters.source)}`);
  if (filters.isSuccess !== undefined) where.push(`is_success = ${params.add(filters.isSuccess)}`);
  if (filters.startTime !== undefined) where.push(`created_at >= ${params.add(filters.startTime)}`);
  if (filters.endTime !== undefined) where.push(`created_at <= ${params.add(filters.endTime)}`);
  return sql.query(
    `SELECT ${RESULT_COLUMNS} FROM agent_success_evaluations WHERE ${where.join(" AND ")}
      ORDER BY created_at DESC, result_id DESC LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`,
    params.values,
  );
}

export async function readSuccessResult(sql: Sql, scope: Scope, resultId: number): Promise<SuccessResultRecord | undefined> {
  const [row] = await sql.query<SuccessResultRecord>(
    `SELECT ${RESULT_COLUMNS} FROM agent_success_evaluations WHERE org_id = $1 AND project_id = $2 AND result_id = $3`,
    [scope.orgId, scope.projectId, resultId],
  );
  return row;
}

/** The newest on-demand verdict of (session, agent_version) written at or after `since`: grade_on_demand's cache. */
export async function findOnDemandResult(
  sql: Sql,
  scope: Scope,
  sessionId: string,
  agentVersion: string,
  since: number,
): Promise<SuccessResultRecord | undefined> {
  const [row] = await sql.query<SuccessResultRecord>(
    `SELECT ${RESULT_COLUMNS} FROM agent_success_evaluations
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3 AND agent_version = $4 AND origin = 'on_demand' AND created_at >= $5
      ORDER BY created_at DESC, result_id DESC LIMIT 1`,
    [scope.orgId, scope.projectId, sessionId, agentVersion, since],
  );
  return row;
}

/** A stored per-learning verdict. */
export interface LearningResultRecord {
  result_id: number;
  user_id: string;
  session_id: string;
  agent_version: string;
  interaction_id: number;
  interaction_created_at: number;
  kind: "profile" | "user_playbook" | "agent_playbook";
  learning_id: string;
  cited: boolean;
  exposure_verified: boolean;
  is_relevant: boolean | null;
  relevance_reason: string;
  impact: "positive" | "negative" | "neutral" | null;
  impact_reason: string;
  diagnosis: {
    category: "content_defect" | "application_failure" | "external_failure" | "no_issue" | "unknown";
    reason: string;
    evidence_interaction_ids: number[];
  } | null;
  created_at: number;
}

export type LearningResultInsert = Omit<LearningResultRecord, "result_id" | "created_at">;

const LEARNING_COLUMNS = `result_id, user_id, session_id, agent_version, interaction_id, interaction_created_at, kind, learning_id, cited,
  exposure_verified, is_relevant, relevance_reason, impact, impact_reason, diagnosis, created_at`;

/** Replaces the session's per-learning verdicts with `rows`: the stored set is always the latest evaluation. */
export async function replaceLearningResults(tx: Sql, scope: Scope, sessionId: string, rows: LearningResultInsert[], now: number): Promise<void> {
  await tx.query("DELETE FROM retrieved_learning_evaluations WHERE org_id = $1 AND project_id = $2 AND session_id = $3", [
    scope.orgId,
    scope.projectId,
    sessionId,
  ]);
  await inStatements(rows, 14, async (batch) => {
    const params = new Params();
    const org = params.add(scope.orgId);
    const project = params.add(scope.projectId);
    const at = params.add(now);
    const values = batch.map(
      (row) =>
        `(${org}, ${project}, ${params.add(row.user_id)}, ${params.add(row.session_id)}, ${params.add(row.agent_version)}, ${params.add(row.interaction_id)}::bigint,
          ${params.add(row.interaction_created_at)}::bigint, ${params.add(row.kind)}, ${params.add(row.learning_id)}, ${params.add(row.cited)}::boolean,
          ${params.add(row.exposure_verified)}::boolean, ${params.add(row.is_relevant)}::boolean, ${params.add(row.relevance_reason)}, ${params.add(row.impact)},
          ${params.add(row.impact_reason)}, ${params.add(row.diagnosis)}::jsonb, ${at})`,
    );
    await tx.query(
      `INSERT INTO retrieved_learning_evaluations (org_id, project_id, user_id, session_id, agent_version, interaction_id, interaction_created_at, kind,
         learning_id, cited, exposure_verified, is_relevant, relevance_reason, impact, impact_reason, diagnosis, created_at)
       VALUES ${values.join(", ")}`,
      params.values,
    );
    return [];
  });
}

export interface LearningResultFilters {
  userId?: string | undefined;
  sessionId?: string | undefined;
  kind?: string | undefined;
  learningId?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/** Per-learning verdicts, newest responses first; the time bounds (inclusive) are on the response's time. */
export async function listLearningResults(sql: Sql, scope: Scope, filters: LearningResultFilters, limit: number): Promise<LearningResultRecord[]> {
  const params = new Params();
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`];
  if (filters.userId !== undefined) where.push(`user_id = ${params.add(filters.userId)}`);
  if (filters.sessionId !== undefined) where.push(`session_id = ${params.add(filters.sessionId)}`);
  if (filters.kind !== undefined) where.push(`kind = ${params.add(filters.kind)}`);
  if (filters.learningId !== undefined) where.push(`learning_id = ${params.add(filters.learningId)}`);
  if (filters.startTime !== undefined) where.push(`interaction_created_at >= ${params.add(filters.startTime)}`);
  if (filters.endTime !== undefined) where.push(`interaction_created_at <= ${params.add(filters.endTime)}`);
  return sql.query(
    `SELECT ${LEARNING_COLUMNS} FROM retrieved_learning_evaluations WHERE ${where.join(" AND ")}
      ORDER BY interaction_created_at DESC, interaction_id DESC, result_id LIMIT ${params.add(limit)}`,
    params.values,
  );
}

/** The text of each learning still stored, by 'kind:learning_id' (profiles: content; playbooks: when trigger, do content). */
export async function learningTexts(sql: Sql, scope: Scope, refs: { kind: string; learning_id: string }[]): Promise<Map<string, string>> {
  const ids = (kind: string) => [...new Set(refs.filter((ref) => ref.kind === kind).map((ref) => ref.learning_id))];
  const numeric = (values: string[]) => values.filter((value) => /^\d{1,15}$/.test(value)).map(Number);
  const rows = await sql.query<{ ref: string; text: string }>(
    `SELECT 'profile:' || profile_id AS ref, content AS text FROM profiles WHERE org_id = $1 AND project_id = $2 AND profile_id = ANY($3::text[])
     UNION ALL
     SELECT 'user_playbook:' || user_playbook_id, 'when ' || trigger || ', ' || content FROM user_playbooks
      WHERE org_id = $1 AND project_id = $2 AND user_playbook_id = ANY($4::bigint[])
     UNION ALL
     SELECT 'agent_playbook:' || agent_playbook_id, 'when ' || trigger || ', ' || content FROM agent_playbooks
      WHERE org_id = $1 AND project_id = $2 AND agent_playbook_id = ANY($5::bigint[])`,
    [scope.orgId, scope.projectId, ids("profile"), numeric(ids("user_playbook")), numeric(ids("agent_playbook"))],
  );
  return new Map(rows.map((row) => [row.ref, row.text]));
}

/** A session's interactions, in the order of its requests (created_at, request_id) and of each request's turns. */
export async function sessionInteractionsInOrder(sql: Sql, scope: Scope, sessionId: string): Promise<InteractionRecord[]> {
  return sql.query<InteractionRecord>(
    `SELECT i.interaction_id, i.user_id, i.request_id, i.session_id, i.seq, i.evaluation_only, i.created_at, i.role, i.content, i.shadow_content,
            i.expert_content, i.image_encoding, i.user_action, i.user_action_description, i.interacted_image_url, i.tools_used, i.citations,
            i.retrieved_learnings
       FROM interactions i JOIN requests r ON r.org_id = i.org_id AND r.project_id = i.project_id AND r.request_id = i.request_id
      WHERE i.org_id = $1 AND i.project_id = $2 AND i.session_id = $3
      ORDER BY r.created_at, r.request_id, i.seq`,
    [scope.orgId, scope.projectId, sessionId],
  );
}

/** A shadow judge's verdict on one turn, as stored. */
export interface ShadowVerdictInsert {
  user_id: string;
  session_id: string;
  interaction_id: number;
  agent_version: string;
  judge_prompt_version: string;
  winner: "regular" | "shadow" | "tie";
  is_significantly_better: boolean;
  comparison_reason: string | null;
  interaction_created_at: number;
}

export type ShadowVerdictRecord = ShadowVerdictInsert & { verdict_id: number; created_at: number };

/** Saves each turn's verdict, replacing an earlier one of the same turn and judge prompt version. */
export async function upsertShadowVerdicts(tx: Sql, scope: Scope, rows: ShadowVerdictInsert[], now: number): Promise<void> {
  await inStatements(rows, 9, async (batch) => {
    const params = new Params();
    const org = params.add(scope.orgId);
    const project = params.add(scope.projectId);
    const at = params.add(now);
    const values = batch.map(
      (row) =>
        `(${org}, ${project}, ${params.add(row.user_id)}, ${params.add(row.session_id)}, ${params.add(row.interaction_id)}::bigint, ${params.add(row.agent_version)},
          ${params.add(row.judge_prompt_version)}, ${params.add(row.winner)}, ${params.add(row.is_significantly_better)}::boolean,
          ${params.add(row.comparison_reason)}, ${params.add(row.interaction_created_at)}::bigint, ${at})`,
    );
    await tx.query(
      `INSERT INTO shadow_comparisons (org_id, project_id, user_id, session_id, interaction_id, agent_version, judge_prompt_version, winner,
         is_significantly_better, comparison_reason, interaction_created_at, created_at)
       VALUES ${values.join(", ")}
       ON CONFLICT (org_id, project_id, interaction_id, judge_prompt_version) DO UPDATE SET winner = EXCLUDED.winner,
         is_significantly_better = EXCLUDED.is_significantly_better, comparison_reason = EXCLUDED.comparison_reason,
         agent_version = EXCLUDED.agent_version, created_at = EXCLUDED.created_at`,
      params.values,
    );
    return [];
  });
}

/** The newest verdicts of one judge prompt version written at or after `since`. */
export async function recentShadowVerdicts(
  sql: Sql,
  scope: Scope,
  filters: { version: string; since: number; sessionId?: string | undefined },
  limit: number,
): Promise<ShadowVerdictRecord[]> {
  const params = new Params();
  const where = [
    `org_id = ${params.add(scope.orgId)}`,
    `project_id = ${params.add(scope.projectId)}`,
    `judge_prompt_version = ${params.add(filters.version)}`,
    `created_at >= ${params.add(filters.since)}`,
  ];
  if (filters.sessionId !== undefined) where.push(`session_id = ${params.add(filters.sessionId)}`);
  return sql.query(
    `SELECT verdict_id, user_id, session_id, interaction_id, agent_version, judge_prompt_version, winner, is_significantly_better, comparison_reason,
            interaction_created_at, created_at
       FROM shadow_comparisons WHERE ${where.join(" AND ")} ORDER BY created_at DESC, verdict_id DESC LIMIT ${params.add(limit)}`,
    params.values,
  );
}

/** Serialises on-demand grades of one (session, agent_version) until the transaction `tx` ends. */
export async function lockOnDemandGrade(tx: Sql, scope: Scope, sessionId: string, agentVersion: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [JSON.stringify(["grade_on_demand", scope.orgId, scope.projectId, sessionId, agentVersion])]);
}
