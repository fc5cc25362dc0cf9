import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Scope, Sql } from "@als/db";

/**
 * Every place `needle` appears in the database, found from the catalog (so a table added later is
 * scanned too): each column of every base table whose values can hold text (text, varchar, json,
 * jsonb, arrays), as `table.column` → rows. Tables with a project are scanned in `scope` only.
 */
export async function findTextEverywhere(db: Sql, needle: string, scope: Scope): Promise<Record<string, number>> {
  const columns = await db.query<{ table_name: string; column_name: string; scoped: boolean }>(
    `SELECT c.table_name, c.column_name,
            EXISTS (SELECT 1 FROM information_schema.columns p WHERE p.table_schema = c.table_schema AND p.table_name = c.table_name
                      AND p.column_name = 'project_id') AS scoped
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND (c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED'))
        AND c.udt_name <> 'vector'
      ORDER BY 1, 2`,
  );
  const found: Record<string, number> = {};
  for (const { table_name, column_name, scoped } of columns) {
    const where = scoped ? "org_id = $2 AND project_id = $3 AND" : "";
    const [row] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${table_name}" WHERE ${where} "${column_name}"::text LIKE '%' || $1 || '%'`,
      scoped ? [needle, scope.orgId, scope.projectId] : [needle],
    );
    if (row!.n > 0) found[`${table_name}.${column_name}`] = row!.n;
  }
  return found;
}

/**
 * The files under `directory` (recursively) whose bytes contain any of `needles` as UTF-8, as path
 * relative to it → the needles found. What a reader of the disk would find, whatever wrote it.
 */
export async function filesHolding(directory: string, needles: readonly string[]): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    const hits = needles.filter((needle) => bytes.includes(Buffer.from(needle, "utf8")));
    if (hits.length > 0) found[relative(directory, path)] = hits;
  }
  return found;
}

/** The planner statistics (pg_statistic's sampled values) that quote any of `needles`, as `table.column` → needles found. */
export async function statisticsHolding(db: Sql, needles: readonly string[]): Promise<Record<string, string[]>> {
  const rows = await db.query<{ name: string; values: string }>(
    `SELECT c.relname || '.' || a.attname AS name,
            concat_ws(' ', s.stavalues1::text, s.stavalues2::text, s.stavalues3::text, s.stavalues4::text, s.stavalues5::text) AS values
       FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid JOIN pg_attribute a ON a.attrelid = s.starelid AND a.attnum = s.staattnum`,
  );
  const found: Record<string, string[]> = {};
  for (const { name, values } of rows) {
    const hits = needles.filter((needle) => values.includes(needle));
    if (hits.length > 0) found[name] = hits;
  }
  return found;
}
