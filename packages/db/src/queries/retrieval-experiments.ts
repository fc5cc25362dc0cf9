import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** A retrieval experiment a project started (migration 0026); ended_at null while it runs. */
export interface ExperimentRecord {
  experiment_id: string;
  arm_split: number;
  started_at: number;
  ended_at: number | null;
}

const COLUMNS = "experiment_id, arm_split, started_at, ended_at";

export async function insertExperiment(tx: Sql, scope: Scope, experiment: ExperimentRecord): Promise<void> {
  await tx.query(
    `INSERT INTO retrieval_experiments (org_id, project_id, experiment_id, arm_split, started_at, ended_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (org_id, project_id, experiment_id) DO NOTHING`,
    [scope.orgId, scope.projectId, experiment.experiment_id, experiment.arm_split, experiment.started_at, experiment.ended_at],
  );
}

export async function endExperiment(tx: Sql, scope: Scope, experimentId: string, endedAt: number): Promise<void> {
  await tx.query(
    "UPDATE retrieval_experiments SET ended_at = greatest($4, started_at) WHERE org_id = $1 AND project_id = $2 AND experiment_id = $3 AND ended_at IS NULL",
    [scope.orgId, scope.projectId, experimentId, endedAt],
  );
}

/** The project's experiments, newest first. */
export async function listExperiments(sql: Sql, scope: Scope): Promise<ExperimentRecord[]> {
  return sql.query<ExperimentRecord>(
    `SELECT ${COLUMNS} FROM retrieval_experiments WHERE org_id = $1 AND project_id = $2 ORDER BY started_at DESC, experiment_id`,
    [scope.orgId, scope.projectId],
  );
}

export async function findExperiment(sql: Sql, scope: Scope, experimentId: string): Promise<ExperimentRecord | undefined> {
  const [found] = await sql.query<ExperimentRecord>(
    `SELECT ${COLUMNS} FROM retrieval_experiments WHERE org_id = $1 AND project_id = $2 AND experiment_id = $3`,
    [scope.orgId, scope.projectId, experimentId],
  );
  return found;
}

/** What an arm of an experiment saw: its users and sessions, and the sessions' reported outcomes. */
export interface ArmCounts {
  arm: "treatment" | "holdout";
  users: number;
  sessions: number;
  /** Sessions with an outcome of success or failure (unknown ones are not graded). */
  graded_sessions: number;
  graded_users: number;
  successes: number;
}

/**
 * Per arm: the sessions whose requests carried the experiment (a session counts in the arm of its
 * earliest such request), and their current outcome (session_outcomes, the displaced ones left out).
 */
export async function experimentArmCounts(sql: Sql, scope: Scope, experimentId: string): Promise<ArmCounts[]> {
  return sql.query<ArmCounts>(
    `WITH sessions AS (
       SELECT DISTINCT ON (session_id) session_id, user_id, retrieval_experiment_arm AS arm
       FROM requests WHERE org_id = $1 AND project_id = $2 AND retrieval_experiment_id = $3
       ORDER BY session_id, created_at, request_id)
     SELECT s.arm, count(DISTINCT s.user_id)::int AS users, count(*)::int AS sessions,
       count(o.outcome_id) FILTER (WHERE o.outcome IN ('success', 'failure'))::int AS graded_sessions,
       count(DISTINCT s.user_id) FILTER (WHERE o.outcome IN ('success', 'failure'))::int AS graded_users,
       count(o.outcome_id) FILTER (WHERE o.outcome = 'success')::int AS successes
     FROM sessions s LEFT JOIN session_outcomes o
       ON o.org_id = $1 AND o.project_id = $2 AND o.session_id = s.session_id AND o.archived_at IS NULL
     GROUP BY s.arm ORDER BY s.arm`,
    [scope.orgId, scope.projectId, experimentId],
  );
}
