import type { Sql } from "../driver.ts";

export type SessionKind = "login" | "governance";

/** A live session joined with what resolving it needs of its member and organisation. */
export interface LiveSession {
  session_id: string;
  kind: SessionKind;
  member_id: string;
  org_id: string;
  role: "owner" | "admin" | "member";
  email: string;
  governance_entitled: boolean;
  expires_at: number;
}

export async function insertSession(
  sql: Sql,
  session: {
    session_id: string;
    token_hash: string;
    member_id: string;
    org_id: string;
    kind: SessionKind;
    created_at: number;
    expires_at: number;
    /** The session a governance session was opened from: it ends with that one's login session. */
    opened_by?: string;
  },
): Promise<void> {
  await sql.query(
    `INSERT INTO login_sessions (session_id, token_hash, member_id, org_id, kind, created_at, expires_at, opened_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE((SELECT opened_by FROM login_sessions WHERE session_id = $8), $8))`,
    [
      session.session_id,
      session.token_hash,
      session.member_id,
      session.org_id,
      session.kind,
      session.created_at,
      session.expires_at,
      session.opened_by ?? null,
    ],
  );
}

/**
 * The session whose token hashes to `tokenHash` if it is live at `now`: not expired, not revoked
 * (logout, password change) and its member still in the organisation.
 */
export async function findLiveSessionByHash(sql: Sql, tokenHash: string, now: number): Promise<LiveSession | null> {
  const [row] = await sql.query<LiveSession>(
    `SELECT s.session_id, s.kind, s.member_id, s.org_id, m.role, m.email, o.governance_entitled, s.expires_at
       FROM login_sessions s
       JOIN members m ON m.member_id = s.member_id AND m.org_id = s.org_id
       JOIN organizations o ON o.org_id = s.org_id
      WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2`,
    [tokenHash, now],
  );
  return row ?? null;
}

/** Ends the session and the governance sessions opened from it. */
export async function revokeSession(sql: Sql, sessionId: string, now: number): Promise<void> {
  await sql.query("UPDATE login_sessions SET revoked_at = $2 WHERE (session_id = $1 OR opened_by = $1) AND revoked_at IS NULL", [sessionId, now]);
}
