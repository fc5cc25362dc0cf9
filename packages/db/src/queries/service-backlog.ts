import type { Sql } from "../driver.ts";

/** The kinds of durable work with a status column, and the table each is kept in. */
const DURABLE_WORK_TABLES = {
  aggregation: "aggregation_operations",
  generation_run: "generation_runs",
  purge: "purge_operations",
  evaluation_job: "evaluation_jobs",
} as const;

/** Every kind countDurableWork reports. */
export const DURABLE_WORK_KINDS = [...(Object.keys(DURABLE_WORK_TABLES) as (keyof typeof DURABLE_WORK_TABLES)[]), "data_source_sample", "learning"] as const;
export type DurableWorkKind = (typeof DURABLE_WORK_KINDS)[number];
/** Work not finished well: succeeded (and cancelled) rows only grow and are left out. */
export const DURABLE_WORK_STATUSES = ["queued", "running", "retrying", "failed"] as const;
export type DurableWorkStatus = (typeof DURABLE_WORK_STATUSES)[number];

export interface DurableWorkCount {
  kind: DurableWorkKind;
  status: DurableWorkStatus;
  count: number;
}

/**
 * Durable work of every project by kind and status, for the metrics scrape: operations waiting,
 * under way, waiting for a retry, or failed for good. A sample reading its provider counts as
 * running; a learning cursor whose last window failed counts as retrying, or failed when retrying
 * cannot help (no provider, a stall).
 */
export async function countDurableWork(sql: Sql): Promise<DurableWorkCount[]> {
  return sql.query<DurableWorkCount>(durableWorkQuery("", ""));
}

/** countDurableWork for one organisation, per project: what its members' console shows. */
export async function countOrganizationDurableWork(sql: Sql, orgId: string): Promise<(DurableWorkCount & { projectId: string })[]> {
  return sql.query<DurableWorkCount & { projectId: string }>(durableWorkQuery('project_id AS "projectId", ', "AND org_id = $1"), [orgId]);
}

/** The one statement of durable work counts: `project` selects (and groups by) the project, `where` narrows the rows. */
function durableWorkQuery(project: string, where: string): string {
  const groupProject = project ? "project_id, " : "";
  const operations = Object.entries(DURABLE_WORK_TABLES).map(
    ([kind, table]) =>
      `SELECT ${project}'${kind}' AS kind, status, count(*)::int AS count FROM ${table}
        WHERE status IN ('queued', 'running', 'retrying', 'failed') ${where} GROUP BY ${groupProject}status`,
  );
  return `${operations.join(" UNION ALL ")}
     UNION ALL
     SELECT ${project}'data_source_sample', CASE status WHEN 'in_progress' THEN 'running' ELSE status END, count(*)::int
       FROM data_source_samples WHERE status IN ('in_progress', 'failed') ${where} GROUP BY ${groupProject}status
     UNION ALL
     SELECT ${project}'learning', CASE WHEN failure_final THEN 'failed' ELSE 'retrying' END, count(*)::int
       FROM learning_cursors WHERE failure IS NOT NULL ${where} GROUP BY ${groupProject}failure_final`;
}

export interface ProjectLearningLag {
  /** Unix seconds of the oldest request some cursor of the project has not covered. */
  oldestAt: number;
  /** Users of the project with such requests. */
  users: number;
}

/**
 * Per project with learning still to do, its oldest request not yet learned from and how many
 * users wait: one row per project, no project named (metrics carry no tenant's names). At most
 * `limit` projects, the longest waiting first.
 */
export async function readLearningLag(sql: Sql, limit: number): Promise<ProjectLearningLag[]> {
  return sql.query<ProjectLearningLag>(learningLagQuery("", "", "LIMIT $1"), [limit]);
}

/** readLearningLag for one organisation, each project named: what its members' console shows. */
export async function readOrganizationLearningLag(sql: Sql, orgId: string): Promise<(ProjectLearningLag & { projectId: string })[]> {
  return sql.query<ProjectLearningLag & { projectId: string }>(learningLagQuery('c.project_id AS "projectId", ', "WHERE c.org_id = $1", ""), [orgId]);
}

function learningLagQuery(project: string, where: string, limit: string): string {
  return `SELECT ${project}min(r.created_at) AS "oldestAt", count(DISTINCT r.user_id)::int AS users
       FROM learning_cursors c
       JOIN requests r ON r.org_id = c.org_id AND r.project_id = c.project_id AND r.user_id = c.user_id
        AND r.last_seq > c.covered_seq AND NOT r.evaluation_only
      ${where}
      GROUP BY c.org_id, c.project_id
      ORDER BY "oldestAt"
      ${limit}`;
}
