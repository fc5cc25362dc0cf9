import { loginSessions, type SessionKind } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import { hashSecret, newId, newSessionToken } from "./secret-tokens.ts";

/**
 * A dashboard session lasts a working week; a governance session, which can erase a person,
 * fifteen minutes after the admin typed the password again.
 */
export const SESSION_LIFETIME_SECONDS: Record<SessionKind, number> = { login: 7 * 24 * 3600, governance: 15 * 60 };

export interface OpenedSession {
  token: string;
  session_id: string;
  expires_at: number;
}

/**
 * A new session of the member; the token is returned once, only its hash is stored. A governance
 * session names the session it was opened from (`openedBy`): logging that out ends it too.
 */
export async function openSession(
  deps: IdentityDeps,
  member: { member_id: string; org_id: string },
  kind: SessionKind,
  openedBy?: string,
): Promise<OpenedSession> {
  const token = newSessionToken(kind);
  const now = deps.now();
  const session = {
    session_id: newId("ses"),
    token_hash: hashSecret(token),
    member_id: member.member_id,
    org_id: member.org_id,
    kind,
    created_at: now,
    expires_at: now + SESSION_LIFETIME_SECONDS[kind],
    ...(openedBy !== undefined && { opened_by: openedBy }),
  };
  await loginSessions.insertSession(deps.db, session);
  return { token, session_id: session.session_id, expires_at: session.expires_at };
}
