import type { Sql } from "../driver.ts";

export type MemberRole = "owner" | "admin" | "member";

/** A member as the account endpoints show it: never the password hash. */
export interface MemberRecord {
  member_id: string;
  org_id: string;
  email: string;
  role: MemberRole;
  email_verified_at: number | null;
  invited: boolean;
  created_at: number;
}

const SHOWN = "member_id, org_id, email, role, email_verified_at, invited, created_at";

export interface MemberInsert extends Omit<MemberRecord, "created_at"> {
  password_hash: string | null;
  oidc_issuer?: string | null;
  oidc_subject?: string | null;
}

/** False when the address (or the OpenID identity) already has a login: both are unique across the service. */
export async function insertMember(sql: Sql, member: MemberInsert, now: number): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO members (member_id, org_id, email, password_hash, role, email_verified_at, invited, oidc_issuer, oidc_subject, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING member_id`,
    [
      member.member_id,
      member.org_id,
      member.email,
      member.password_hash,
      member.role,
      member.email_verified_at,
      member.invited,
      member.oidc_issuer ?? null,
      member.oidc_subject ?? null,
      now,
    ],
  );
  return rows.length > 0;
}

export async function findMember(sql: Sql, memberId: string): Promise<MemberRecord | null> {
  const [row] = await sql.query<MemberRecord>(`SELECT ${SHOWN} FROM members WHERE member_id = $1`, [memberId]);
  return row ?? null;
}

/** The member of that (lowercased) address with its password hash, to check a log-in. */
export async function findMemberCredentials(sql: Sql, email: string): Promise<(MemberRecord & { password_hash: string | null }) | null> {
  const [row] = await sql.query<MemberRecord & { password_hash: string | null }>(`SELECT ${SHOWN}, password_hash FROM members WHERE email = $1`, [email]);
  return row ?? null;
}

export async function findMemberByOidcSubject(sql: Sql, issuer: string, subject: string): Promise<MemberRecord | null> {
  const [row] = await sql.query<MemberRecord>(`SELECT ${SHOWN} FROM members WHERE oidc_issuer = $1 AND oidc_subject = $2`, [issuer, subject]);
  return row ?? null;
}

export async function listMembers(sql: Sql, orgId: string): Promise<MemberRecord[]> {
  return sql.query<MemberRecord>(`SELECT ${SHOWN} FROM members WHERE org_id = $1 ORDER BY created_at, member_id`, [orgId]);
}

export async function markEmailVerified(sql: Sql, memberId: string, now: number): Promise<void> {
  await sql.query("UPDATE members SET email_verified_at = COALESCE(email_verified_at, $2) WHERE member_id = $1", [memberId, now]);
}

/**
 * Replaces the password and revokes every session of the member (run it in a transaction); the
 * caller opens the session it answers with afterwards, so the member stays logged in where the
 * change was made and nowhere else.
 */
export async function replacePassword(tx: Sql, memberId: string, passwordHash: string, now: number): Promise<void> {
  await tx.query("UPDATE members SET password_hash = $2 WHERE member_id = $1", [memberId, passwordHash]);
  await tx.query("UPDATE login_sessions SET revoked_at = $2 WHERE member_id = $1 AND revoked_at IS NULL", [memberId, now]);
}

/** The removed member, or null when the organisation has no such member. Its sessions go with it. */
export async function deleteMember(sql: Sql, orgId: string, memberId: string): Promise<MemberRecord | null> {
  const [row] = await sql.query<MemberRecord>(`DELETE FROM members WHERE org_id = $1 AND member_id = $2 RETURNING ${SHOWN}`, [orgId, memberId]);
  return row ?? null;
}

/** The organisation's owners, their rows locked until the transaction ends, so two owners removing each other cannot leave none. */
export async function lockOwners(tx: Sql, orgId: string): Promise<string[]> {
  const rows = await tx.query<{ member_id: string }>("SELECT member_id FROM members WHERE org_id = $1 AND role = 'owner' FOR UPDATE", [orgId]);
  return rows.map((row) => row.member_id);
}

/** The member with its new role, or null when the organisation has no such member. */
export async function updateMemberRole(tx: Sql, orgId: string, memberId: string, role: MemberRole): Promise<MemberRecord | null> {
  const [row] = await tx.query<MemberRecord>(`UPDATE members SET role = $3 WHERE org_id = $1 AND member_id = $2 RETURNING ${SHOWN}`, [orgId, memberId, role]);
  return row ?? null;
}
