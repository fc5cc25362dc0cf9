import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type ReviewDecision = "accept" | "reject" | "edit" | "skip";

export async function insertReviewRun(sql: Sql, scope: Scope, runId: string, now: number): Promise<void> {
  await sql.query("INSERT INTO playbook_review_runs (run_id, org_id, project_id, status, created_at) VALUES ($1, $2, $3, 'running', $4)", [
    runId,
    scope.orgId,
    scope.projectId,
    now,
  ]);
}

export async function finishReviewRun(
  sql: Sql,
  runId: string,
  outcome: { status: "completed" | "failed"; errorCode: string | null },
  now: number,
): Promise<void> {
  await sql.query("UPDATE playbook_review_runs SET status = $2, error_code = $3, finished_at = $4 WHERE run_id = $1", [
    runId,
    outcome.status,
    outcome.errorCode,
    now,
  ]);
}

export async function recordReviewDecision(
  sql: Sql,
  runId: string,
  decision: { userPlaybookId: number; decision: ReviewDecision; reason: string; replacementId: number | null },
  now: number,
): Promise<void> {
  await sql.query(
    "INSERT INTO playbook_review_decisions (run_id, user_playbook_id, decision, reason, replacement_id, decided_at) VALUES ($1, $2, $3, $4, $5, $6)",
    [runId, decision.userPlaybookId, decision.decision, decision.reason, decision.replacementId, now],
  );
}

export interface ReviewDecisionRow {
  user_playbook_id: number;
  decision: ReviewDecision;
  reason: string;
  replacement_id: number | null;
}

export async function decisionsOfRun(sql: Sql, runId: string): Promise<ReviewDecisionRow[]> {
  return sql.query<ReviewDecisionRow>(
    "SELECT user_playbook_id, decision, reason, replacement_id FROM playbook_review_decisions WHERE run_id = $1 ORDER BY decided_at, user_playbook_id",
    [runId],
  );
}

export async function reviewRunStatus(sql: Sql, runId: string): Promise<{ status: string; error_code: string | null } | undefined> {
  const [row] = await sql.query<{ status: string; error_code: string | null }>("SELECT status, error_code FROM playbook_review_runs WHERE run_id = $1", [
    runId,
  ]);
  return row;
}
