import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import type { Extractor } from "./learning.ts";

/** The learning_status reason of a window held because it does not fit the input budget. */
export const INPUT_BUDGET_EXCEEDED = "input_budget_exceeded";

/** A window held for an operator: its cursor waits before it, and so do the later windows of that extractor. */
export interface HeldWindow {
  user_id: string;
  extractor: Extractor;
  from_seq: number;
  through_seq: number;
  input_tokens: number;
  budget_tokens: number;
  held_at: number;
  /** The requests whose interactions the window holds. */
  request_ids: string[];
}

/**
 * Holds the window after the cursor through `throughSeq`: the cursor stays, its failure is the
 * final reason `input_budget_exceeded` (what learning_status reports for the window's requests).
 */
export async function holdWindow(
  sql: Sql,
  scope: Scope,
  held: { userId: string; extractor: Extractor; throughSeq: number; inputTokens: number; budgetTokens: number },
  now: number,
): Promise<void> {
  await sql.query(
    `UPDATE learning_cursors SET failure = $5, failure_final = true, failure_stalled = false, failed_through_seq = $6, retry_at = NULL, attempts = attempts + 1,
       held_through_seq = $6, held_input_tokens = $7, held_budget_tokens = $8, held_at = $9, budget_override_tokens = NULL
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND extractor = $4`,
    [scope.orgId, scope.projectId, held.userId, held.extractor, INPUT_BUDGET_EXCEEDED, held.throughSeq, held.inputTokens, held.budgetTokens, now],
  );
}

/** The project's held windows (one user's, when named), oldest first. */
export async function listHeldWindows(sql: Sql, scope: Scope, userId: string | null): Promise<HeldWindow[]> {
  return sql.query<HeldWindow>(
    `SELECT c.user_id, c.extractor, c.covered_seq + 1 AS from_seq, c.held_through_seq AS through_seq, c.held_input_tokens AS input_tokens,
            c.held_budget_tokens AS budget_tokens, c.held_at,
            ARRAY(SELECT r.request_id FROM requests r WHERE r.org_id = c.org_id AND r.project_id = c.project_id AND r.user_id = c.user_id
                    AND r.last_seq > c.covered_seq AND r.first_seq <= c.held_through_seq ORDER BY r.first_seq) AS request_ids
       FROM learning_cursors c
      WHERE c.org_id = $1 AND c.project_id = $2 AND c.held_through_seq IS NOT NULL AND ($3::text IS NULL OR c.user_id = $3)
      ORDER BY c.held_at, c.user_id, c.extractor`,
    [scope.orgId, scope.projectId, userId],
  );
}

export type Recovery = { action: "skip" } | { action: "retry"; budgetTokens: number };

/**
 * Recovers `held` (as the caller read it in this transaction), and records who did it: `skip`
 * moves the cursor past it (its interactions are never learned from), `retry` lets the next attempt
 * run it with a larger budget. Either clears the failure. False when the cursor no longer holds it.
 */
export async function recoverHeldWindow(tx: Sql, scope: Scope, held: HeldWindow, recovery: Recovery & { actorRef: string }, now: number): Promise<boolean> {
  const skipTo = recovery.action === "skip" ? held.through_seq : null;
  const budget = recovery.action === "retry" ? recovery.budgetTokens : null;
  const updated = await tx.query(
    `UPDATE learning_cursors SET covered_seq = coalesce($5, covered_seq), failure = NULL, failure_final = false, failure_stalled = false, failed_through_seq = NULL, retry_at = NULL, attempts = 0,
       held_through_seq = NULL, held_input_tokens = NULL, held_budget_tokens = NULL, held_at = NULL, budget_override_tokens = $6
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND extractor = $4 AND held_through_seq = $7 RETURNING 1`,
    [scope.orgId, scope.projectId, held.user_id, held.extractor, skipTo, budget, held.through_seq],
  );
  if (updated.length === 0) return false;
  await tx.query(
    `INSERT INTO learning_recoveries (org_id, project_id, user_id, extractor, action, from_seq, through_seq, budget_tokens, actor_ref, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [scope.orgId, scope.projectId, held.user_id, held.extractor, recovery.action, held.from_seq, held.through_seq, budget, recovery.actorRef, now],
  );
  return true;
}
