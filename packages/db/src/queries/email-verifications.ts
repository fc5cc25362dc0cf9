import type { Sql } from "../driver.ts";

/** A mailed link that proves a member owns the address they registered with; only the token's hash is stored. */
export async function insertEmailVerification(sql: Sql, verification: { token_hash: string; member_id: string; expires_at: number }): Promise<void> {
  await sql.query("INSERT INTO email_verifications (token_hash, member_id, expires_at) VALUES ($1, $2, $3)", [
    verification.token_hash,
    verification.member_id,
    verification.expires_at,
  ]);
}

/**
 * Uses the token once: the member it verifies, or null when the token is unknown, expired or was
 * used already. One conditional UPDATE, so two clicks racing each other cannot both succeed.
 */
export async function consumeEmailVerification(sql: Sql, tokenHash: string, now: number): Promise<string | null> {
  const [row] = await sql.query<{ member_id: string }>(
    "UPDATE email_verifications SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING member_id",
    [tokenHash, now],
  );
  return row?.member_id ?? null;
}

/** Forgets a token whose mail never left: nobody holds it. */
export async function deleteEmailVerification(sql: Sql, tokenHash: string): Promise<void> {
  await sql.query("DELETE FROM email_verifications WHERE token_hash = $1", [tokenHash]);
}
