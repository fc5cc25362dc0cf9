import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** A session waiting for (or given) its inferred outcome. */
export interface OutcomeInferenceRecord {
  session_id: string;
  user_id: string;
  playbook_used_at: number;
  last_activity_at: number;
  due_at: number;
  status: "waiting" | "settled";
  failure: string | null;
  attempts: number;
  retry_at: number | null;
}

/** The columns of an OutcomeInferenceRecord, as a claim (session-timers.ts) returns them. */
export const OUTCOME_INFERENCE_COLUMNS = "session_id, user_id, playbook_used_at, last_activity_at, due_at, status, failure, attempts, retry_at";

export interface OutcomeActivity {
  sessionId: string;
  userId: string;
  /** This publish served or cited a playbook: a session without a row gets one. */
  usesPlaybook: boolean;
  /** A user turn follows a playbook use within this publish. */
  repliedInPublish: boolean;
  /** This publish has a user turn: a reply when the session used a playbook before. */
  hasUserTurn: boolean;
  /** When the session counts as quiet if nothing else is published. */
  quietAt: number;
}

/**
 * Notes a publish of a session for its outcome inference: the first publish that uses a playbook
 * creates the row; every later one moves the timer (and puts an inferred session back to waiting,
 * so its inference is refreshed). A reply makes it due now, and a reply not yet inferred stays due
 * through later publishes; otherwise it is due once quiet. A session whose caller reported its
 * outcome is left alone: that outcome is final. Returns true when the session was not waiting
 * before, or a reply made it due now: its orchestrator must be told (a sleeping timer woken).
 */
export async function noteOutcomeActivity(tx: Sql, scope: Scope, activity: OutcomeActivity, now: number): Promise<boolean> {
  const [row] = await tx.query<{ tell: boolean }>(
    `WITH prior AS (
       SELECT status FROM outcome_inferences WHERE org_id = $1 AND project_id = $2 AND session_id = $3 FOR UPDATE
     )
     INSERT INTO outcome_inferences AS o (org_id, project_id, session_id, user_id, playbook_used_at, last_activity_at, due_at, created_at)
     SELECT $1, $2, $3, $4, $5::bigint, $5::bigint, CASE WHEN $6::boolean OR ($9::boolean AND EXISTS (SELECT 1 FROM prior)) THEN $5::bigint ELSE $7::bigint END, $5::bigint
      WHERE ($8::boolean OR EXISTS (SELECT 1 FROM prior))
        AND NOT EXISTS (SELECT 1 FROM session_outcomes s WHERE s.org_id = $1 AND s.project_id = $2 AND s.session_id = $3
                          AND s.archived_at IS NULL AND NOT s.is_inferred)
     ON CONFLICT (org_id, project_id, session_id) DO UPDATE SET
       last_activity_at = greatest(o.last_activity_at, EXCLUDED.last_activity_at),
       due_at = CASE WHEN o.status = 'waiting' AND o.due_at <= o.last_activity_at THEN least(o.due_at, EXCLUDED.due_at) ELSE EXCLUDED.due_at END,
       status = 'waiting',
       attempts = CASE WHEN o.status = 'settled' THEN 0 ELSE o.attempts END
     RETURNING (SELECT status = 'waiting' FROM prior) IS NOT TRUE OR o.due_at <= $5::bigint AS tell`,
    [
      scope.orgId,
      scope.projectId,
      activity.sessionId,
      activity.userId,
      now,
      activity.repliedInPublish,
      activity.quietAt,
      activity.usesPlaybook,
      activity.hasUserTurn,
    ],
  );
  return row?.tell === true;
}

/** Settles a session's inference for good: its caller reported the outcome (final for the session). */
export async function settleInference(tx: Sql, scope: Scope, sessionId: string, now: number): Promise<void> {
  await tx.query(
    `UPDATE outcome_inferences SET status = 'settled', settled_at = $4, failure = NULL, retry_at = NULL
      WHERE org_id = $1 AND project_id = $2 AND session_id = $3`,
    [scope.orgId, scope.projectId, sessionId, now],
  );
}
