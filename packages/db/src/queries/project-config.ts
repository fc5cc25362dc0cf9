import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

export type StoredConfig = Record<string, unknown>;

/** The project's stored configuration, or null when it has never been written. */
export async function readProjectConfig(sql: Sql, scope: Scope): Promise<StoredConfig | null> {
  const [row] = await sql.query<{ config: StoredConfig }>("SELECT config FROM project_config WHERE org_id = $1 AND project_id = $2", [
    scope.orgId,
    scope.projectId,
  ]);
  return row?.config ?? null;
}

/**
 * Locks the project's configuration until the transaction `tx` ends and returns it. A project
 * without one gets an empty row first, so concurrent first changes queue on that row too instead of
 * each seeing nothing; rolled back with the transaction, it leaves nothing behind.
 */
export async function lockProjectConfig(tx: Sql, scope: Scope, now: number): Promise<StoredConfig> {
  await tx.query(
    `INSERT INTO project_config (org_id, project_id, config, updated_at) VALUES ($1, $2, '{}', $3)
     ON CONFLICT (org_id, project_id) DO NOTHING`,
    [scope.orgId, scope.projectId, now],
  );
  const [row] = await tx.query<{ config: StoredConfig }>("SELECT config FROM project_config WHERE org_id = $1 AND project_id = $2 FOR UPDATE", [
    scope.orgId,
    scope.projectId,
  ]);
  return row!.config;
}

export async function replaceProjectConfig(sql: Sql, scope: Scope, config: StoredConfig, now: number): Promise<void> {
  await sql.query(
    `INSERT INTO project_config (org_id, project_id, config, updated_at) VALUES ($1, $2, $3::jsonb, $4)
     ON CONFLICT (org_id, project_id) DO UPDATE SET config = EXCLUDED.config, updated_at = EXCLUDED.updated_at`,
    // Both drivers serialize a value bound to a jsonb parameter themselves.
    [scope.orgId, scope.projectId, config, now],
  );
}

/**
 * The channel on which committed configuration changes are announced: by migration 0048's trigger
 * for each changed row (payload [org_id, project_id]), and by announceOrganisationInvalidated.
 */
export const CONFIG_CHANGES_CHANNEL = "als_config_changes";

/**
 * Tells every process listening on CONFIG_CHANGES_CHANNEL to forget what it caches for the
 * organisation (payload [org_id]); inside a transaction, once it commits.
 */
export async function announceOrganisationInvalidated(sql: Sql, orgId: string): Promise<void> {
  await sql.query("SELECT pg_notify($1, $2)", [CONFIG_CHANGES_CHANNEL, JSON.stringify([orgId])]);
}
