import type { Sql } from "../driver.ts";

/**
 * How much a table may grow past the size its statistics describe before they count as stale:
 * autovacuum's default analyze threshold (50 rows plus a tenth of the table), in pages, since
 * PGlite keeps no count of changed rows (its statistics counters stay at zero).
 */
const GROWTH_SHARE = 0.1;
const GROWTH_PAGES = 8;

/**
 * The tables of this schema (quoted for SQL) whose planner statistics are missing or stale: never
 * analyzed though they hold rows, or grown past the threshold since their last ANALYZE. Without
 * statistics the planner prices every index of a table alike and may pick one that reads a whole
 * project to find one row (the evaluation-session lookup of each publish did, through the index by
 * user: 548 buffers against 5 by the primary key over 1,500 sessions).
 */
export async function tablesOutgrowingStatistics(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ name: string }>(
    `SELECT quote_ident(c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r'
        AND pg_relation_size(c.oid) / current_setting('block_size')::int8
          > CASE WHEN c.reltuples < 0 THEN 0 ELSE c.relpages * (1 + $1::float8) + $2 END
      ORDER BY c.relname`,
    [GROWTH_SHARE, GROWTH_PAGES],
  );
  return rows.map((row) => row.name);
}

/** ANALYZE of these tables (as tablesOutgrowingStatistics names them); nothing when there are none. */
export async function analyzeTables(sql: Sql, quotedNames: readonly string[]): Promise<void> {
  if (quotedNames.length > 0) await sql.exec(`ANALYZE ${quotedNames.join(", ")}`);
}
