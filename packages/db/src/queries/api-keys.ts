import type { Sql } from "../driver.ts";

export type ApiKeyAccess = "full" | "limited";

/** A key as it is listed: never its value or its hash. */
export interface ApiKeyRecord {
  key_id: string;
  org_id: string;
  project_id: string;
  name: string;
  access: ApiKeyAccess;
  prefix: string;
  created_by: string | null;
  created_at: number;
  last_used_at: number | null;
}

const LISTED = "key_id, org_id, project_id, name, access, prefix, created_by, created_at, last_used_at";

export async function insertApiKey(sql: Sql, key: Omit<ApiKeyRecord, "last_used_at"> & { key_hash: string }): Promise<void> {
  await sql.query(
    `INSERT INTO api_keys (key_id, org_id, project_id, name, access, prefix, key_hash, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [key.key_id, key.org_id, key.project_id, key.name, key.access, key.prefix, key.key_hash, key.created_by, key.created_at],
  );
}

/** The live (not revoked) key whose whole value hashes to `keyHash`. */
export async function findLiveApiKeyByHash(sql: Sql, keyHash: string): Promise<ApiKeyRecord | null> {
  const [row] = await sql.query<ApiKeyRecord>(`SELECT ${LISTED} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [keyHash]);
  return row ?? null;
}

/** The organisation's live keys, newest first. */
export async function listLiveApiKeys(sql: Sql, orgId: string): Promise<ApiKeyRecord[]> {
  return sql.query<ApiKeyRecord>(`SELECT ${LISTED} FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, key_id`, [orgId]);
}

/** The revoked key, or null when the organisation has no live key of that prefix. */
export async function revokeApiKeyByPrefix(sql: Sql, orgId: string, prefix: string, now: number): Promise<ApiKeyRecord | null> {
  const [row] = await sql.query<ApiKeyRecord>(
    `UPDATE api_keys SET revoked_at = $3 WHERE org_id = $1 AND prefix = $2 AND revoked_at IS NULL RETURNING ${LISTED}`,
    [orgId, prefix, now],
  );
  return row ?? null;
}

/**
 * Records a use of the key at most once a minute: a write per request would put a row lock on the
 * hot path of every search and publish made with one key.
 */
export async function touchApiKey(sql: Sql, keyId: string, now: number): Promise<void> {
  await sql.query("UPDATE api_keys SET last_used_at = $2 WHERE key_id = $1 AND (last_used_at IS NULL OR last_used_at < $2 - 60)", [keyId, now]);
}
