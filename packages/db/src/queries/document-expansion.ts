import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** The tables whose rows get expansion terms (migration 0024), each with its id and its expanded text. */
export const EXPANDED_TABLES = {
  profiles: { idColumn: "profile_id", trigger: "NULL" },
  user_playbooks: { idColumn: "user_playbook_id", trigger: "trigger" },
  agent_playbooks: { idColumn: "agent_playbook_id", trigger: "trigger" },
} as const;
export type ExpandedTable = keyof typeof EXPANDED_TABLES;

/** A row waiting for its expansion: the text the terms are for, and the digest they will be stored under. */
export interface PendingExpansion {
  id: string;
  trigger: string | null;
  content: string;
  digest: string;
}

/** The pending condition of migration 0024's partial indexes, so the planner can use them. */
const pending = (table: ExpandedTable) => `expansion_of IS DISTINCT FROM expansion_digest(${EXPANDED_TABLES[table].trigger}, content)`;

/** Projects that enable document expansion and hold rows whose expansion is missing or stale. */
export async function findScopesWithPendingExpansion(sql: Sql): Promise<Scope[]> {
  const waiting = (Object.keys(EXPANDED_TABLES) as ExpandedTable[])
    .map((table) => `EXISTS (SELECT 1 FROM ${table} t WHERE t.org_id = c.org_id AND t.project_id = c.project_id AND ${pending(table)})`)
    .join(" OR ");
  const rows = await sql.query<{ org_id: string; project_id: string }>(
    `SELECT c.org_id, c.project_id FROM project_config c
     WHERE (c.config ->> 'enable_document_expansion')::boolean AND (${waiting})
     ORDER BY c.org_id, c.project_id`,
  );
  return rows.map((row) => ({ orgId: row.org_id, projectId: row.project_id }));
}

/** Up to `limit` rows of `table` whose expansion is missing or was written for another text, oldest ids first. */
export async function pendingExpansions(sql: Sql, scope: Scope, table: ExpandedTable, limit: number): Promise<PendingExpansion[]> {
  const { idColumn, trigger } = EXPANDED_TABLES[table];
  return sql.query<PendingExpansion>(
    `SELECT ${idColumn}::text AS id, ${trigger} AS trigger, content, expansion_digest(${trigger}, content) AS digest
     FROM ${table} WHERE org_id = $1 AND project_id = $2 AND ${pending(table)}
     ORDER BY ${idColumn} LIMIT $3`,
    [scope.orgId, scope.projectId, limit],
  );
}

/** How many rows of the project still wait for an expansion, over the three tables. */
export async function countPendingExpansions(sql: Sql, scope: Scope): Promise<number> {
  const counts = (Object.keys(EXPANDED_TABLES) as ExpandedTable[])
    .map((table) => `(SELECT count(*) FROM ${table} WHERE org_id = $1 AND project_id = $2 AND ${pending(table)})`)
    .join(" + ");
  const [row] = await sql.query<{ n: number }>(`SELECT (${counts})::int AS n`, [scope.orgId, scope.projectId]);
  return row?.n ?? 0;
}

/**
 * Stores each row's terms under the digest of the text they were written for. A row edited since
 * (its digest moved on) or deleted is left alone: it is still pending, for its new text. Returns
 * how many rows took their terms.
 */
export async function storeExpansions(
  sql: Sql,
  scope: Scope,
  table: ExpandedTable,
  expansions: readonly { id: string; digest: string; terms: string }[],
): Promise<number> {
  if (expansions.length === 0) return 0;
  const { idColumn, trigger } = EXPANDED_TABLES[table];
  const triggerOfRow = trigger === "NULL" ? "NULL" : "t.trigger";
  const rows = await sql.query(
    `UPDATE ${table} t SET expansion_terms = e.terms, expansion_of = e.digest
     FROM unnest($3::text[], $4::text[], $5::text[]) AS e(id, digest, terms)
     WHERE t.org_id = $1 AND t.project_id = $2 AND t.${idColumn}::text = e.id
       AND expansion_digest(${triggerOfRow}, t.content) = e.digest
     RETURNING 1`,
    [scope.orgId, scope.projectId, expansions.map((e) => e.id), expansions.map((e) => e.digest), expansions.map((e) => e.terms)],
  );
  return rows.length;
}

/**
 * Takes the project's expansion lease until `until` when it is free or expired; false while another
 * process holds it.
 */
export async function claimExpansionLease(sql: Sql, scope: Scope, now: number, until: number): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO document_expansion_leases (org_id, project_id, leased_until) VALUES ($1, $2, $4)
     ON CONFLICT (org_id, project_id) DO UPDATE SET leased_until = $4 WHERE document_expansion_leases.leased_until <= $3
     RETURNING 1`,
    [scope.orgId, scope.projectId, now, until],
  );
  return rows.length > 0;
}

/** Extends the lease this process holds to `until`, before its next step. */
export async function renewExpansionLease(sql: Sql, scope: Scope, until: number): Promise<void> {
  await sql.query("UPDATE document_expansion_leases SET leased_until = $3 WHERE org_id = $1 AND project_id = $2", [scope.orgId, scope.projectId, until]);
}

export async function releaseExpansionLease(sql: Sql, scope: Scope): Promise<void> {
  await sql.query("DELETE FROM document_expansion_leases WHERE org_id = $1 AND project_id = $2", [scope.orgId, scope.projectId]);
}

/** Frees every lease: for the one process of an embedded database at its start, whose leases a crash left behind. */
export async function releaseAllExpansionLeases(sql: Sql): Promise<void> {
  await sql.query("DELETE FROM document_expansion_leases");
}
