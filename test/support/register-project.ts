import { organizations, type Scope, type Sql } from "@als/db";
/**
 * Makes a scope a real organisation and project (every row of tenant data references its project),
 * for tests that write to scopes of their own directly through the domain functions.
 */
export async function registerProject(db: Sql, scope: Scope): Promise<Scope> {
  const now = Math.floor(Date.now() / 1000);
  await db.query("INSERT INTO organizations (org_id, name, created_at) VALUES ($1, $1, $2) ON CONFLICT DO NOTHING", [scope.orgId, now]);
  await organizations.insertProject(db, scope.orgId, { projectId: scope.projectId, name: scope.projectId }, now);
  return scope;
}
