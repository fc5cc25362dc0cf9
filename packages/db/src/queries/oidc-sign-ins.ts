import type { Sql } from "../driver.ts";

/** What an OpenID Connect sign-in begun here needs to check its callback: the state is the key. */
export interface OidcSignInRecord {
  state: string;
  nonce: string;
  code_verifier: string;
  expires_at: number;
}

/**
 * Records a sign-in begun. Sign-ins that were never finished are forgotten here, once expired:
 * anyone may begin one, so the table must not grow with abandoned attempts.
 */
export async function insertOidcSignIn(sql: Sql, signIn: OidcSignInRecord, now: number): Promise<void> {
  await sql.query("DELETE FROM oidc_sign_ins WHERE expires_at <= $1", [now]);
  await sql.query("INSERT INTO oidc_sign_ins (state, nonce, code_verifier, expires_at) VALUES ($1, $2, $3, $4)", [
    signIn.state,
    signIn.nonce,
    signIn.code_verifier,
    signIn.expires_at,
  ]);
}

/** Takes the sign-in of `state` out (a callback is redeemed once); null when unknown, taken already or expired. */
export async function takeOidcSignIn(sql: Sql, state: string, now: number): Promise<OidcSignInRecord | null> {
  const [row] = await sql.query<OidcSignInRecord>("DELETE FROM oidc_sign_ins WHERE state = $1 RETURNING state, nonce, code_verifier, expires_at", [state]);
  return row && row.expires_at > now ? row : null;
}
