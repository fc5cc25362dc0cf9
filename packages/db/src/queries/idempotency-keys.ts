import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** A key as stored (migration 0041): the request it was used on, what that committed, and the answer once sent. */
export interface IdempotencyKeyRecord {
  idempotency_key: string;
  procedure: string;
  fingerprint: string;
  user_id: string | null;
  outcome: Record<string, unknown>;
  answer: Record<string, unknown> | null;
  created_at: number;
  expires_at: number;
}

export type IdempotencyKeyInsert = IdempotencyKeyRecord;

/**
 * Records a key in the caller's transaction; false when a live record of it exists already (another
 * attempt committed under it: PostgreSQL waits for that attempt's transaction to end first). An
 * expired record not yet pruned is replaced.
 */
export async function recordKey(sql: Sql, scope: Scope, key: IdempotencyKeyInsert): Promise<boolean> {
  const inserted = await sql.query(
    `INSERT INTO idempotency_keys (org_id, project_id, idempotency_key, procedure, fingerprint, user_id, outcome, answer, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $10::text::jsonb, $8, $9)
     ON CONFLICT (org_id, project_id, idempotency_key) DO UPDATE
       SET procedure = EXCLUDED.procedure, fingerprint = EXCLUDED.fingerprint, user_id = EXCLUDED.user_id, outcome = EXCLUDED.outcome,
           answer = EXCLUDED.answer, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
     RETURNING 1`,
    [
      scope.orgId,
      scope.projectId,
      key.idempotency_key,
      key.procedure,
      key.fingerprint,
      key.user_id,
      JSON.stringify(key.outcome),
      key.created_at,
      key.expires_at,
      key.answer === null ? null : JSON.stringify(key.answer),
    ],
  );
  return inserted.length > 0;
}

/** The live record of a key (not expired at `now`), if any. */
export async function findKey(sql: Sql, scope: Scope, key: string, now: number): Promise<IdempotencyKeyRecord | undefined> {
  const [found] = await sql.query<IdempotencyKeyRecord>(
    `SELECT idempotency_key, procedure, fingerprint, user_id, outcome, answer, created_at, expires_at FROM idempotency_keys
      WHERE org_id = $1 AND project_id = $2 AND idempotency_key = $3 AND expires_at > $4`,
    [scope.orgId, scope.projectId, key, now],
  );
  return found;
}

/** Keeps the answer sent under a key; the first one kept stays (a retry that answered meanwhile does not replace it). */
export async function saveAnswer(sql: Sql, scope: Scope, key: string, answer: Record<string, unknown>): Promise<void> {
  await sql.query("UPDATE idempotency_keys SET answer = $4::text::jsonb WHERE org_id = $1 AND project_id = $2 AND idempotency_key = $3 AND answer IS NULL", [
    scope.orgId,
    scope.projectId,
    key,
    JSON.stringify(answer),
  ]);
}

/** Deletes up to `limit` keys expired at `now`, of every project; returns how many. */
export async function pruneExpiredKeys(sql: Sql, now: number, limit: number): Promise<number> {
  const gone = await sql.query(`DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2) RETURNING 1`, [
    now,
    limit,
  ]);
  return gone.length;
}
