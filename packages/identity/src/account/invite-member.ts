import { AppError, type CreateInvitationRequest, type InvitationListing } from "@als/contract";
import { type InvitationRecord, invitations, members, organizations } from "@als/db";
import type { z } from "zod";
import type { AccountDeps } from "../account-services.ts";
import { invitationMail } from "../mail/templates.ts";
import { normalizeEmail } from "../organizations.ts";
import type { SessionPrincipal } from "../principal.ts";
import { hashSecret, newId, newMailedToken } from "../secret-tokens.ts";
import { ACCOUNT_TOKEN_LIFETIME_SECONDS } from "./account-token-lifetimes.ts";
import { toInvitationListing } from "./list-invitations.ts";
import { requireAdmin } from "./require-admin.ts";
import { sendAccountMail } from "./send-account-mail.ts";

/**
 * Invites an address to the organisation (admins and owners) and mails it the link; 409 when the
 * address is already a member of this organisation (the admin sees its members anyway). An address
 * with a login in another organisation is invited like any other, so the answer does not tell an
 * admin which addresses have a login anywhere: the mail tells its owner that the link works only
 * once that login is gone (one login per address). Inviting an address again replaces its pending
 * invitation: only the newest link works.
 */
export async function inviteMember(
  deps: AccountDeps,
  actor: SessionPrincipal,
  input: z.output<typeof CreateInvitationRequest>,
): Promise<z.input<typeof InvitationListing>> {
  requireAdmin(actor, "invite members");
  const email = normalizeEmail(input.email);
  const existing = await members.findMemberCredentials(deps.db, email);
  if (existing?.org_id === actor.orgId) throw new AppError("conflict", `${email} is already a member of this organisation`);
  const organization = await organizations.findOrganization(deps.db, actor.orgId);
  if (organization === null) throw AppError.notFound("organisation");
  const token = newMailedToken();
  const now = deps.now();
  const invitation: InvitationRecord = {
    invitation_id: newId("inv"),
    org_id: actor.orgId,
    email,
    role: input.role,
    invited_by: actor.memberId,
    created_at: now,
    expires_at: now + ACCOUNT_TOKEN_LIFETIME_SECONDS.invitation,
  };
  await deps.db.transaction(async (tx) => {
    await invitations.revokePendingInvitations(tx, actor.orgId, email, now);
    await invitations.insertInvitation(tx, { ...invitation, token_hash: hashSecret(token) });
  });
  const link = `${deps.publicUrl}/api/account/invitations/accept?token=${encodeURIComponent(token)}`;
  await sendAccountMail(
    deps.mailer,
    invitationMail({ to: email, organizationName: organization.name, inviterEmail: actor.email, link, addressHasLogin: existing !== null }),
    () => invitations.deleteInvitation(deps.db, invitation.invitation_id),
  );
  return toInvitationListing(invitation);
}
