import { type AcceptInvitationRequest, type AcceptInvitationResponse, AppError } from "@als/contract";
import { invitations, type MemberRecord, members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import { checkPasswordStrength, hashPassword } from "../passwords.ts";
import { hashSecret, newId } from "../secret-tokens.ts";
import { openSession } from "../sessions.ts";

/**
 * Accepts an invitation once: a member of the inviting organisation with the invited role, whose
 * address the mailed token proved, and a session. 404 when the token is unknown, expired, replaced
 * or used; 409 when the address got a login meanwhile (the invitation then stays unused).
 */
export async function acceptInvitation(deps: IdentityDeps, input: z.output<typeof AcceptInvitationRequest>): Promise<z.input<typeof AcceptInvitationResponse>> {
  checkPasswordStrength(input.password);
  // Hashed before the transaction: argon2 takes tens of milliseconds no row lock needs to wait for.
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  const member = await deps.db.transaction(async (tx) => {
    const invitation = await invitations.consumeInvitation(tx, hashSecret(input.token), now);
    if (invitation === null) throw AppError.notFound("invitation (unknown, expired, replaced or already accepted)");
    const joining: MemberRecord = {
      member_id: newId("mem"),
      org_id: invitation.org_id,
      email: invitation.email,
      role: invitation.role,
      email_verified_at: now,
      invited: true,
      created_at: now,
    };
    if (!(await members.insertMember(tx, { ...joining, password_hash: passwordHash }, now))) {
      throw new AppError("conflict", `${invitation.email} already has a login`);
    }
    return joining;
  });
  const session = await openSession(deps, member, "login");
  return {
    member_id: member.member_id,
    org_id: member.org_id,
    email: member.email,
    role: member.role,
    invited: true,
    email_verified: true,
    token: session.token,
    expires_at: session.expires_at,
  };
}
