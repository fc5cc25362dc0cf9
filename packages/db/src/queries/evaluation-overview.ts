import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { Params } from "./params.ts";

// The evaluation overview, computed in SQL over the current verdicts (agent_success_evaluations,
// its partial index on the session's start) and the shadow verdicts: aggregates come back, never rows.

/** 1970-01-05, a Monday: ISO weeks start on Mondays. */
const FIRST_MONDAY = 4 * 86_400;

/** The SQL of a bucket's start for a Unix-second column: UTC days, or ISO weeks. */
function bucketSql(column: string, bucket: "day" | "week"): string {
  return bucket === "day"
    ? `(floor(${column} / 86400.0) * 86400)::bigint`
    : `(floor((${column} - ${FIRST_MONDAY}) / 604800.0) * 604800 + ${FIRST_MONDAY})::bigint`;
}

export interface OverviewWindow {
  from: number;
  to: number;
  /** Only sessions whose first request had this source ('' : none); undefined: every session. */
  source?: string | undefined;
}

/** The condition of the current verdicts of sessions started in the window (`alias`: the table's, with its dot). */
function currentVerdicts(scope: Scope, window: { from: number; to: number; source?: string | undefined }, params: Params, alias = ""): string {
  const where = [
    `${alias}org_id = ${params.add(scope.orgId)}`,
    `${alias}project_id = ${params.add(scope.projectId)}`,
    `${alias}superseded_at IS NULL`,
    `${alias}session_started_at >= ${params.add(window.from)}`,
    `${alias}session_started_at < ${params.add(window.to)}`,
  ];
  if (window.source !== undefined) where.push(`${alias}source = ${params.add(window.source)}`);
  return where.join(" AND ");
}

export interface SuccessBucketRow {
  ts: number;
  n: number;
  rate: number;
  avg_corrections: number;
  escalation_rate: number;
}

/** Graded sessions per bucket of their start: success rate, corrections, escalations; ascending. */
export async function successBuckets(sql: Sql, scope: Scope, window: OverviewWindow, bucket: "day" | "week"): Promise<SuccessBucketRow[]> {
  const params = new Params();
  return sql.query(
    `SELECT ${bucketSql("session_started_at", bucket)} AS ts, count(*)::int AS n, avg(is_success::int)::float8 AS rate,
            avg(number_of_correction_per_session)::float8 AS avg_corrections, avg(is_escalated::int)::float8 AS escalation_rate
       FROM agent_success_evaluations WHERE ${currentVerdicts(scope, window, params)}
      GROUP BY 1 ORDER BY 1`,
    params.values,
  );
}

export interface TileRow {
  sessions: number;
  success_rate: number | null;
  avg_corrections: number | null;
  avg_turns: number | null;
  escalation_rate: number | null;
}

/** The headline measures of [from, to) and of the equally long window before it, in one pass. */
export async function tiles(sql: Sql, scope: Scope, window: OverviewWindow & { baselineFrom: number }): Promise<{ current: TileRow; baseline: TileRow }> {
  const params = new Params();
  const from = params.add(window.from);
  const measures = (filter: string, name: string) =>
    `count(*) FILTER (WHERE ${filter})::int AS ${name}_sessions,
     (avg(is_success::int) FILTER (WHERE ${filter}))::float8 AS ${name}_success_rate,
     (avg(number_of_correction_per_session) FILTER (WHERE ${filter}))::float8 AS ${name}_avg_corrections,
     (avg(user_turns_to_resolution) FILTER (WHERE ${filter}))::float8 AS ${name}_avg_turns,
     (avg(is_escalated::int) FILTER (WHERE ${filter}))::float8 AS ${name}_escalation_rate`;
  const [row] = await sql.query<Record<string, number | null>>(
    `SELECT ${measures(`session_started_at >= ${from}`, "current")}, ${measures(`session_started_at < ${from}`, "baseline")}
       FROM agent_success_evaluations WHERE ${currentVerdicts(scope, { from: window.baselineFrom, to: window.to, source: window.source }, params)}`,
    params.values,
  );
  const pick = (name: string): TileRow => ({
    sessions: row![`${name}_sessions`] ?? 0,
    success_rate: row![`${name}_success_rate`] ?? null,
    avg_corrections: row![`${name}_avg_corrections`] ?? null,
    avg_turns: row![`${name}_avg_turns`] ?? null,
    escalation_rate: row![`${name}_escalation_rate`] ?? null,
  });
  return { current: pick("current"), baseline: pick("baseline") };
}

/** success_score in `bins` equal bins over [0, 1] (1 falls in the last), for the window and its baseline. */
export async function scoreBins(
  sql: Sql,
  scope: Scope,
  window: OverviewWindow & { baselineFrom: number },
  bins: number,
): Promise<{ current: number[]; baseline: number[] }> {
  const params = new Params();
  const from = params.add(window.from);
  const count = params.add(bins);
  const rows = await sql.query<{ bin: number; current: number; baseline: number }>(
    `SELECT least(width_bucket(success_score, 0, 1, ${count}::int), ${count}::int) AS bin,
            count(*) FILTER (WHERE session_started_at >= ${from})::int AS current, count(*) FILTER (WHERE session_started_at < ${from})::int AS baseline
       FROM agent_success_evaluations WHERE ${currentVerdicts(scope, { from: window.baselineFrom, to: window.to, source: window.source }, params)}
      GROUP BY 1`,
    params.values,
  );
  const current = Array<number>(bins).fill(0);
  const baseline = Array<number>(bins).fill(0);
  for (const row of rows) {
    current[row.bin - 1] = row.current;
    baseline[row.bin - 1] = row.baseline;
  }
  return { current, baseline };
}

export interface AttributionRow {
  ref: string;
  sessions: number;
  cited_sessions: number;
  successes: number;
}

/** The learnings given to (or cited by) the window's graded sessions, with how those sessions ended; most sessions first. */
export async function ruleAttribution(sql: Sql, scope: Scope, window: OverviewWindow, limit: number): Promise<AttributionRow[]> {
  const params = new Params();
  // Each verdict's refs are made distinct within the row (a learning both given and cited counts
  // once): a sort of the few refs of one row instead of a DISTINCT over every (verdict, ref) pair.
  return sql.query(
    `SELECT ref, count(*)::int AS sessions, count(*) FILTER (WHERE cited)::int AS cited_sessions, count(*) FILTER (WHERE is_success)::int AS successes
       FROM (SELECT r.ref, e.is_success, r.ref = ANY(e.cited_learning_refs) AS cited
               FROM agent_success_evaluations e,
                    LATERAL (SELECT DISTINCT ref FROM unnest(e.retrieved_learning_refs || e.cited_learning_refs) AS given(ref)) r
              WHERE ${currentVerdicts(scope, window, params, "e.")}) used
      GROUP BY ref ORDER BY sessions DESC, ref LIMIT ${params.add(limit)}`,
    params.values,
  );
}

/** Graded sessions of the window per source of their first request. */
export async function sessionsBySource(sql: Sql, scope: Scope, window: OverviewWindow): Promise<{ source: string; n: number }[]> {
  const params = new Params();
  return sql.query(
    `SELECT source, count(*)::int AS n FROM agent_success_evaluations WHERE ${currentVerdicts(scope, window, params)} GROUP BY source ORDER BY source`,
    params.values,
  );
}

export interface ShadowDayRow {
  day: string;
  ts: number;
  n: number;
  wins: number;
  losses: number;
  ties: number;
}

/**
 * Shadow verdicts of one judge prompt version on turns of [from, to), per UTC day (or `bucket`), ascending:
 * a win is a turn whose regular answer was judged better than its shadow.
 */
export async function shadowBuckets(
  sql: Sql,
  scope: Scope,
  window: { from: number; to: number; version: string },
  bucket: "day" | "week",
): Promise<ShadowDayRow[]> {
  const ts = bucketSql("interaction_created_at", bucket);
  // The day's label is made once per bucket, after grouping, not once per verdict.
  return sql.query(
    `SELECT to_char(to_timestamp(ts) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ts, n, wins, losses, ties FROM (
       SELECT ${ts} AS ts, count(*)::int AS n, count(*) FILTER (WHERE winner = 'regular')::int AS wins,
              count(*) FILTER (WHERE winner = 'shadow')::int AS losses, count(*) FILTER (WHERE winner = 'tie')::int AS ties
         FROM shadow_comparisons
        WHERE org_id = $1 AND project_id = $2 AND judge_prompt_version = $3 AND interaction_created_at >= $4 AND interaction_created_at < $5
        GROUP BY 1) buckets
      ORDER BY ts`,
    [scope.orgId, scope.projectId, window.version, window.from, window.to],
  );
}
