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
