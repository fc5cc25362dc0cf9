import type { Sql } from "../driver.ts";

export type InvitedRole = "admin" | "member";

/** An invitation as it is listed: never its token or the token's hash. */
export interface InvitationRecord {
  invitation_id: string;
  org_id: string;
  email: string;
  role: InvitedRole;
  invited_by: string | null;
  created_at: number;
  expires_at: number;
}

const LISTED = "invitation_id, org_id, email, role, invited_by, created_at, expires_at";

export async function insertInvitation(sql: Sql, invitation: InvitationRecord & { token_hash: string }): Promise<void> {
  await sql.query(
    `INSERT INTO invitations (invitation_id, org_id, email, role, token_hash, invited_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      invitation.invitation_id,
      invitation.org_id,
      invitation.email,
      invitation.role,
      invitation.token_hash,
      invitation.invited_by,
      invitation.created_at,
      invitation.expires_at,
    ],
  );
}

/** Withdraws the organisation's pending invitations of an address: inviting it again replaces the link. */
export async function revokePendingInvitations(sql: Sql, orgId: string, email: string, now: number): Promise<void> {
  await sql.query("UPDATE invitations SET revoked_at = $3 WHERE org_id = $1 AND email = $2 AND accepted_at IS NULL AND revoked_at IS NULL", [
    orgId,
    email,
    now,
  ]);
}

/** Removes an invitation whose mail could not be sent: nobody holds its link. */
export async function deleteInvitation(sql: Sql, invitationId: string): Promise<void> {
  await sql.query("DELETE FROM invitations WHERE invitation_id = $1", [invitationId]);
}

/** The organisation's invitations that can still be accepted, newest first. */
export async function listPendingInvitations(sql: Sql, orgId: string, now: number): Promise<InvitationRecord[]> {
  return sql.query<InvitationRecord>(
    `SELECT ${LISTED} FROM invitations
      WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2
      ORDER BY created_at DESC, invitation_id`,
    [orgId, now],
  );
}

/**
 * Accepts the invitation once: the invitation, or null when the token is unknown, expired, revoked
 * or was accepted already. Run it in the transaction that creates the member, so a refused member
 * leaves the invitation pending.
 */
export async function consumeInvitation(sql: Sql, tokenHash: string, now: number): Promise<InvitationRecord | null> {
  const [row] = await sql.query<InvitationRecord>(
    `UPDATE invitations SET accepted_at = $2
      WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2
      RETURNING ${LISTED}`,
    [tokenHash, now],
  );
  return row ?? null;
}
