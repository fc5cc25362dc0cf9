import type { Sql } from "../driver.ts";

export interface OrganizationRecord {
  org_id: string;
  name: string;
  governance_entitled: boolean;
  created_at: number;
}

export interface ProjectRecord {
  org_id: string;
  project_id: string;
  name: string;
  created_at: number;
}

/** An organisation and its `default` project, in the caller's transaction (every organisation starts with one). */
export async function insertOrganization(tx: Sql, org: { orgId: string; name: string }, now: number): Promise<void> {
  await tx.query("INSERT INTO organizations (org_id, name, created_at) VALUES ($1, $2, $3)", [org.orgId, org.name, now]);
  await insertProject(tx, org.orgId, { projectId: "default", name: "Default" }, now);
}

export async function findOrganization(sql: Sql, orgId: string): Promise<OrganizationRecord | null> {
  const [row] = await sql.query<OrganizationRecord>("SELECT org_id, name, governance_entitled, created_at FROM organizations WHERE org_id = $1", [orgId]);
  return row ?? null;
}

/**
 * True when the organisation existed (an operator granting the entitlement must name a real one).
 * Withdrawing it ends the organisation's governance sessions in the same statement: one would
 * otherwise go on serving as a login session until it expired.
 */
export async function setGovernanceEntitlement(sql: Sql, orgId: string, entitled: boolean): Promise<boolean> {
  const rows = await sql.query(
    `WITH ended AS (
       UPDATE login_sessions SET revoked_at = floor(extract(epoch FROM clock_timestamp()))::bigint WHERE NOT $2 AND org_id = $1 AND kind = 'governance' AND revoked_at IS NULL
     )
     UPDATE organizations SET governance_entitled = $2 WHERE org_id = $1 RETURNING org_id`,
    [orgId, entitled],
  );
  return rows.length > 0;
}

/** False when the organisation already has a project of that id. */
export async function insertProject(sql: Sql, orgId: string, project: { projectId: string; name: string }, now: number): Promise<boolean> {
  const rows = await sql.query(
    "INSERT INTO projects (org_id, project_id, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING project_id",
    [orgId, project.projectId, project.name, now],
  );
  return rows.length > 0;
}

export async function projectExists(sql: Sql, orgId: string, projectId: string): Promise<boolean> {
  const rows = await sql.query("SELECT 1 FROM projects WHERE org_id = $1 AND project_id = $2", [orgId, projectId]);
  return rows.length > 0;
}

export async function listProjects(sql: Sql, orgId: string): Promise<ProjectRecord[]> {
  return sql.query<ProjectRecord>("SELECT org_id, project_id, name, created_at FROM projects WHERE org_id = $1 ORDER BY created_at, project_id", [orgId]);
}

/** Removes an organisation with everything that references it (projects, members, their tokens): a registration undone. */
export async function deleteOrganization(sql: Sql, orgId: string): Promise<void> {
  await sql.query("DELETE FROM organizations WHERE org_id = $1", [orgId]);
}
