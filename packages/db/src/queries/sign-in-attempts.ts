import type { Sql } from "../driver.ts";

/** A token bucket's size and refill: `burst` attempts at once, then `perSecond`. */
export interface AttemptBucket {
  perSecond: number;
  burst: number;
}

/**
 * Takes one token from the client address's bucket, in one statement so that every API process
 * spends the same bucket: 0 when the attempt may go on, else the seconds until a token is back.
 * Buckets idle long enough to be full again are deleted on the way (they hold no information).
 */
export async function takeAddressToken(sql: Sql, clientAddress: string, bucket: AttemptBucket, now: number): Promise<number> {
  const refilled = "LEAST($2, b.tokens + GREATEST(0, $3 - b.refilled_at) * $4)";
  const fullAgainBefore = now - bucket.burst / bucket.perSecond;
  const taken = await sql.query(
    `WITH pruned AS (DELETE FROM sign_in_address_buckets WHERE refilled_at < $5 AND client_address <> $1)
     INSERT INTO sign_in_address_buckets AS b (client_address, tokens, refilled_at) VALUES ($1, $2 - 1, $3)
     ON CONFLICT (client_address) DO UPDATE SET tokens = ${refilled} - 1, refilled_at = GREATEST(b.refilled_at, $3)
      WHERE ${refilled} >= 1
     RETURNING tokens`,
    [clientAddress, bucket.burst, now, bucket.perSecond, fullAgainBefore],
  );
  if (taken.length > 0) return 0;
  const [row] = await sql.query<{ tokens: number }>(`SELECT ${refilled} AS tokens FROM sign_in_address_buckets b WHERE client_address = $1`, [
    clientAddress,
    bucket.burst,
    now,
    bucket.perSecond,
  ]);
  return Math.max(1, Math.ceil((1 - Number(row?.tokens ?? 0)) / bucket.perSecond));
}

/** Wrong passwords typed for the member since `since`: from every address, and from `clientAddress`. */
export async function countFailures(sql: Sql, memberId: string, clientAddress: string, since: number): Promise<{ all: number; fromAddress: number }> {
  const [row] = await sql.query<{ total: number; from_address: number }>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE client_address = $2))::int AS from_address
       FROM sign_in_failures WHERE member_id = $1 AND failed_at > $3`,
    [memberId, clientAddress, since],
  );
  return { all: Number(row?.total ?? 0), fromAddress: Number(row?.from_address ?? 0) };
}

/** Records a wrong password and forgets the member's failures older than `forgetBefore` (they no longer count). */
export async function recordFailure(sql: Sql, memberId: string, clientAddress: string, now: number, forgetBefore: number): Promise<void> {
  await sql.query(
    `WITH forgotten AS (DELETE FROM sign_in_failures WHERE member_id = $1 AND failed_at <= $4)
     INSERT INTO sign_in_failures (member_id, client_address, failed_at) VALUES ($1, $2, $3)`,
    [memberId, clientAddress, now, forgetBefore],
  );
}

/** True when the member signed in from `clientAddress` with the right password since `since`. */
export async function isKnownAddress(sql: Sql, memberId: string, clientAddress: string, since: number): Promise<boolean> {
  const rows = await sql.query("SELECT 1 FROM sign_in_known_addresses WHERE member_id = $1 AND client_address = $2 AND signed_in_at > $3", [
    memberId,
    clientAddress,
    since,
  ]);
  return rows.length > 0;
}

/** The right password from `clientAddress`: the address becomes known, and its failures stop counting. */
export async function recordSuccess(sql: Sql, memberId: string, clientAddress: string, now: number): Promise<void> {
  await sql.query(
    `WITH cleared AS (DELETE FROM sign_in_failures WHERE member_id = $1 AND client_address = $2)
     INSERT INTO sign_in_known_addresses (member_id, client_address, signed_in_at) VALUES ($1, $2, $3)
     ON CONFLICT (member_id, client_address) DO UPDATE SET signed_in_at = EXCLUDED.signed_in_at`,
    [memberId, clientAddress, now],
  );
}
