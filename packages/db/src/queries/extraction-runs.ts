import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import type { PendingToolCallRecord } from "./pending-tool-calls.ts";

/** The agent state of a window that asked a person (migration 0025). */
export interface ExtractionRunRecord {
  run_id: string;
  user_id: string;
  extractor: string;
  from_seq: number;
  through_seq: number;
  status: "waiting" | "finished";
  messages: Record<string, unknown>;
  created_at: number;
}

export async function createRun(tx: Sql, scope: Scope, run: Omit<ExtractionRunRecord, "status">): Promise<void> {
  await tx.query(
    `INSERT INTO extraction_runs (run_id, org_id, project_id, user_id, extractor, from_seq, through_seq, status, messages, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'waiting', $8, $9)`,
    [run.run_id, scope.orgId, scope.projectId, run.user_id, run.extractor, run.from_seq, run.through_seq, run.messages, run.created_at],
  );
}

/** The run of the user's cursor that waits on questions, with the questions, if one does. */
export async function waitingRun(
  sql: Sql,
  scope: Scope,
  userId: string,
  extractor: string,
): Promise<{ run: ExtractionRunRecord; questions: PendingToolCallRecord[] } | undefined> {
  const [run] = await sql.query<ExtractionRunRecord>(
    `SELECT run_id, user_id, extractor, from_seq, through_seq, status, messages, created_at FROM extraction_runs
     WHERE org_id = $1 AND project_id = $2 AND user_id = $3 AND extractor = $4 AND status = 'waiting'`,
    [scope.orgId, scope.projectId, userId, extractor],
  );
  if (!run) return undefined;
  const questions = await sql.query<PendingToolCallRecord>(
    `SELECT c.* FROM extraction_run_questions q JOIN pending_tool_calls c ON c.id = q.call_id WHERE q.run_id = $1 ORDER BY c.seq`,
    [run.run_id],
  );
  return { run, questions };
}

/** Ends the run in the transaction that commits its window; false when it was not waiting (another step finished it). */
export async function finishRun(tx: Sql, scope: Scope, runId: string, now: number): Promise<boolean> {
  const rows = await tx.query(
    "UPDATE extraction_runs SET status = 'finished', finished_at = $4 WHERE org_id = $1 AND project_id = $2 AND run_id = $3 AND status = 'waiting' RETURNING 1",
    [scope.orgId, scope.projectId, runId, now],
  );
  return rows.length > 0;
}

/** How many questions the user's waiting runs wait on (for learning_status). */
export async function openQuestionsOfUser(sql: Sql, scope: Scope, userId: string): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    `SELECT count(DISTINCT q.call_id)::int AS n FROM extraction_runs r JOIN extraction_run_questions q USING (run_id)
     JOIN pending_tool_calls c ON c.id = q.call_id
     WHERE r.org_id = $1 AND r.project_id = $2 AND r.user_id = $3 AND r.status = 'waiting' AND c.status = 'pending'`,
    [scope.orgId, scope.projectId, userId],
  );
  return row?.n ?? 0;
}
