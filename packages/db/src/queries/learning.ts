import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { HAS_TEXT } from "./interactions.ts";

export type Extractor = "profile" | "playbook";
export const EXTRACTORS: readonly Extractor[] = ["profile", "playbook"];

export interface CursorRecord {
  extractor: Extractor;
  covered_seq: number;
  failure: string | null;
  failure_final: boolean;
  /** The stream's last position when the failure was recorded: requests after it wait for their own attempt. */
  failed_through_seq: number | null;
  attempts: number;
  retry_at: number | null;
  /** The last position of a window held for an operator (see held-windows.ts); null when none is. */
  held_through_seq: number | null;
  /** A retry's larger budget for the next window. */
  budget_override_tokens: number | null;
}

/** Creates the user's cursors at the start of the stream, if they do not exist yet. */
export async function ensureCursors(sql: Sql, scope: Scope, userId: string): Promise<void> {
  await sql.query(
    `INSERT INTO learning_cursors (org_id, project_id, user_id, extractor)
     SELECT $1, $2, $3, unnest($4::text[]) ON CONFLICT DO NOTHING`,
    [scope.orgId, scope.projectId, userId, EXTRACTORS],
  );
}

export async function readCursors(sql: Sql, scope: Scope, userId: string): Promise<CursorRecord[]> {
  return sql.query<CursorRecord>(
    `SELECT extractor, covered_seq, failure, failure_final, failed_through_seq, attempts, retry_at, held_through_seq, budget_override_tokens FROM learning_cursors
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 ORDER BY extractor DESC`,
    [scope.orgId, scope.projectId, userId],
  );
}

/**
 * Takes the user's lease for `ttlSeconds` when it is free, expired, or already ours (`token`).
 * Returns false while another step holds it: one window at a time per user.
 */
export async function acquireUserLease(sql: Sql, scope: Scope, userId: string, token: string, now: number, ttlSeconds: number): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE learning_users SET lease_token = $4, lease_expires_at = $5
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3
       AND (lease_token IS NULL OR lease_token = $4 OR lease_expires_at <= $6)
     RETURNING 1`,
    [scope.orgId, scope.projectId, userId, token, now + ttlSeconds, now],
  );
  return rows.length > 0;
}

export async function releaseUserLease(sql: Sql, scope: Scope, userId: string, token: string): Promise<void> {
  await sql.query(
    `UPDATE learning_users SET lease_token = NULL, lease_expires_at = NULL
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND lease_token = $4`,
    [scope.orgId, scope.projectId, userId, token],
  );
}

/** Frees every user's lease: for a process that knows no other process can be holding one. */
export async function releaseAllUserLeases(sql: Sql): Promise<void> {
  await sql.query("UPDATE learning_users SET lease_token = NULL, lease_expires_at = NULL WHERE lease_token IS NOT NULL");
}

/** Whether a live lease is held on the user's stream (a step is extracting a window of it). */
export async function isUserLeased(sql: Sql, scope: Scope, userId: string, now: number): Promise<boolean> {
  const rows = await sql.query(
    `SELECT 1 FROM learning_users WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND lease_token IS NOT NULL AND lease_expires_at > $4`,
    [scope.orgId, scope.projectId, userId, now],
  );
  return rows.length > 0;
}

/**
 * Moves a cursor from `fromSeq` to `toSeq` and clears its failure, only while the step still holds
 * the user's lease and the cursor is where the step found it. Locks the cursor row, so the
 * window's output can be committed in the same transaction exactly once. False: another step won.
 */
export async function advanceCursor(
  sql: Sql,
  scope: Scope,
  move: { userId: string; extractor: Extractor; fromSeq: number; toSeq: number; leaseToken: string },
): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE learning_cursors c SET covered_seq = $6, failure = NULL, failure_final = false, failure_stalled = false, failed_through_seq = NULL, attempts = 0, retry_at = NULL,
       held_through_seq = NULL, held_input_tokens = NULL, held_budget_tokens = NULL, held_at = NULL, budget_override_tokens = NULL
     FROM learning_users u
     WHERE c.org_id = $1 AND c.project_id = $2 AND c.user_id = $3 AND c.extractor = $4 AND c.covered_seq = $5
       AND u.org_id = c.org_id AND u.project_id = c.project_id AND u.user_id = c.user_id AND u.lease_token = $7
     RETURNING 1`,
    [scope.orgId, scope.projectId, move.userId, move.extractor, move.fromSeq, move.toSeq, move.leaseToken],
  );
  return rows.length > 0;
}

/**
 * Records why a cursor could not advance, for the requests through `throughSeq` (the stream's end
 * the attempt saw); `retryAt` null means not until something changes. `stalled`: the failure is the
 * project's learning stall (see usersStalled).
 */
export async function recordCursorFailure(
  sql: Sql,
  scope: Scope,
  failure: { userId: string; extractor: Extractor; message: string; final: boolean; stalled?: boolean; retryAt: number | null; throughSeq: number },
): Promise<void> {
  await sql.query(
    `UPDATE learning_cursors SET failure = $5, failure_final = $6, failure_stalled = $9, retry_at = $7, failed_through_seq = $8, attempts = attempts + 1
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND extractor = $4`,
    [
      scope.orgId,
      scope.projectId,
      failure.userId,
      failure.extractor,
      failure.message,
      failure.final,
      failure.retryAt,
      failure.throughSeq,
      failure.stalled ?? false,
    ],
  );
}

/** What a user's stream holds past a cursor: the numbers that decide whether a window is due. */
export interface PendingSummary {
  count: number;
  max_seq: number | null;
  /** A request past the cursor asked to bypass the stride, or carries the completion hint of its session. */
  forced: boolean;
  /** A request past the cursor asked to run despite a learning stall. */
  overrides_stall: boolean;
  /** When the newest request past the cursor was published (server time). */
  last_published_at: number | null;
}

/** The interactions past `coveredSeq` that extraction will read (evaluation-only ones never count). */
export async function pendingSummary(sql: Sql, scope: Scope, userId: string, coveredSeq: number): Promise<PendingSummary> {
  const [row] = await sql.query<PendingSummary>(
    `SELECT
       (SELECT count(*) FROM interactions i WHERE i.org_id = $1 AND i.project_id = $2 AND i.user_id = $3
          AND i.seq > $4 AND NOT i.evaluation_only)::int8 AS count,
       (SELECT max(i.seq) FROM interactions i WHERE i.org_id = $1 AND i.project_id = $2 AND i.user_id = $3
          AND i.seq > $4 AND NOT i.evaluation_only) AS max_seq,
       coalesce(bool_or(r.force_extraction OR r.completion_hint), false) AS forced,
       coalesce(bool_or(r.override_learning_stall), false) AS overrides_stall,
       max(r.created_at) AS last_published_at
     FROM requests r
     WHERE r.org_id = $1 AND r.project_id = $2 AND r.user_id = $3 AND r.last_seq > $4 AND NOT r.evaluation_only`,
    [scope.orgId, scope.projectId, userId, coveredSeq],
  );
  return row!;
}

/**
 * The stream position of the `n`-th interaction past `coveredSeq` (evaluation-only ones skipped), or
 * the last one when fewer exist: where a window that covers at most `n` new interactions ends.
 */
export async function windowEnd(sql: Sql, scope: Scope, userId: string, coveredSeq: number, n: number): Promise<number | null> {
  const [row] = await sql.query<{ seq: number | null }>(
    `SELECT max(seq) AS seq FROM (SELECT seq FROM interactions
       WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND seq > $4 AND NOT evaluation_only ORDER BY seq LIMIT $5) next`,
    [scope.orgId, scope.projectId, userId, coveredSeq, n],
  );
  return row?.seq ?? null;
}

/**
 * Users whose stream holds interactions some cursor has not covered yet, or not yet embedded
 * (recovery after a restart).
 */
export async function findUsersWithPendingLearning(sql: Sql): Promise<(Scope & { userId: string })[]> {
  const rows = await sql.query<{ org_id: string; project_id: string; user_id: string }>(
    `SELECT c.org_id, c.project_id, c.user_id FROM learning_cursors c
     JOIN requests r ON r.org_id = c.org_id AND r.project_id = c.project_id AND r.user_id = c.user_id
       AND r.last_seq > c.covered_seq AND NOT r.evaluation_only
     UNION
     SELECT org_id, project_id, user_id FROM interactions WHERE embedding IS NULL AND ${HAS_TEXT}`,
  );
  return rows.map((row) => ({ orgId: row.org_id, projectId: row.project_id, userId: row.user_id }));
}

export interface StallRecord {
  reason: "auth" | "billing";
  error_message: string;
  notified_in_cc: boolean;
  stalled_at: number;
}

export async function readStall(sql: Sql, scope: Scope): Promise<StallRecord | undefined> {
  const [row] = await sql.query<StallRecord>(
    "SELECT reason, error_message, notified_in_cc, stalled_at FROM learning_stalls WHERE org_id = $1 AND project_id = $2",
    [scope.orgId, scope.projectId],
  );
  return row;
}

/** Records a stall; a stall already recorded keeps its time and notification state. */
export async function recordStall(sql: Sql, scope: Scope, stall: { reason: "auth" | "billing"; errorMessage: string }, now: number): Promise<void> {
  await sql.query(
    `INSERT INTO learning_stalls (org_id, project_id, reason, error_message, stalled_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (org_id, project_id) DO UPDATE SET reason = EXCLUDED.reason, error_message = EXCLUDED.error_message`,
    [scope.orgId, scope.projectId, stall.reason, stall.errorMessage, now],
  );
}

/** Clears the project's stall; false when there was none (another step cleared it first). */
export async function clearStall(sql: Sql, scope: Scope): Promise<boolean> {
  const rows = await sql.query("DELETE FROM learning_stalls WHERE org_id = $1 AND project_id = $2 RETURNING 1", [scope.orgId, scope.projectId]);
  return rows.length > 0;
}

/** The users with a cursor whose last attempt the project's learning stall stopped: a cleared stall resumes them. */
export async function usersStalled(sql: Sql, scope: Scope): Promise<string[]> {
  const rows = await sql.query<{ user_id: string }>("SELECT DISTINCT user_id FROM learning_cursors WHERE org_id = $1 AND project_id = $2 AND failure_stalled", [
    scope.orgId,
    scope.projectId,
  ]);
  return rows.map((row) => row.user_id);
}

/** Marks the current stall as notified; false when there is none. */
export async function markStallNotified(sql: Sql, scope: Scope): Promise<boolean> {
  const rows = await sql.query("UPDATE learning_stalls SET notified_in_cc = true WHERE org_id = $1 AND project_id = $2 RETURNING 1", [
    scope.orgId,
    scope.projectId,
  ]);
  return rows.length > 0;
}

export interface LlmUsageRow {
  user_id: string | null;
  request_id: string | null;
  stage: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

/** One LLM call's tokens and cost, as the providers report them, with what it was for. */
export interface LlmUsageRecord {
  userId: string | null;
  requestId: string | null;
  stage: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

export async function recordLlmUsage(sql: Sql, scope: Scope, usage: LlmUsageRecord[], now: number): Promise<void> {
  if (usage.length === 0) return;
  await sql.query(
    `INSERT INTO llm_usage (org_id, project_id, user_id, request_id, stage, model, input_tokens, output_tokens, cost_usd, created_at)
     SELECT $1, $2, u."userId", u."requestId", u.stage, u.model, u."inputTokens", u."outputTokens", u."costUsd", $3
     FROM jsonb_to_recordset($4::jsonb) AS u("userId" text, "requestId" text, stage text, model text, "inputTokens" int, "outputTokens" int, "costUsd" float8)`,
    [scope.orgId, scope.projectId, now, usage],
  );
}

export async function llmUsageOfRequest(sql: Sql, scope: Scope, requestId: string): Promise<LlmUsageRow[]> {
  return sql.query<LlmUsageRow>(
    `SELECT user_id, request_id, stage, model, input_tokens, output_tokens, cost_usd FROM llm_usage
     WHERE org_id = $1 AND project_id = $2 AND request_id = $3 ORDER BY id`,
    [scope.orgId, scope.projectId, requestId],
  );
}

/** Forgets a user's stream and cursors (the user's data is being cleared). */
export async function forgetUserStream(sql: Sql, scope: Scope, userId: string): Promise<void> {
  await sql.query("DELETE FROM learning_cursors WHERE org_id = $1 AND project_id = $2 AND user_id = $3", [scope.orgId, scope.projectId, userId]);
  await sql.query("DELETE FROM learning_users WHERE org_id = $1 AND project_id = $2 AND user_id = $3", [scope.orgId, scope.projectId, userId]);
}

/** What the LLM cost the project on one UTC day, for one stage and model. */
export interface LlmCostRow {
  day: string;
  stage: string;
  model: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  /** null when no call of the row had a known price. */
  cost_usd: number | null;
}

/** The project's LLM calls in [from, to) (Unix seconds), summed per UTC day, stage and model; newest day first. */
export async function llmCostsByDay(sql: Sql, scope: Scope, range: { from: number; to: number }): Promise<LlmCostRow[]> {
  return sql.query<LlmCostRow>(
    `SELECT to_char(to_timestamp(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, stage, model, count(*)::int AS calls,
            sum(input_tokens)::int AS input_tokens, sum(output_tokens)::int AS output_tokens, sum(cost_usd) AS cost_usd
       FROM llm_usage WHERE org_id = $1 AND project_id = $2 AND created_at >= $3 AND created_at < $4
      GROUP BY 1, 2, 3 ORDER BY 1 DESC, 2, 3`,
    [scope.orgId, scope.projectId, range.from, range.to],
  );
}
