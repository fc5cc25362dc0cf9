import { AppError, type RegisterRequest, type RegisterResponse } from "@als/contract";
import { members, organizations } from "@als/db";
import type { z } from "zod";
import type { AccountDeps } from "../account-services.ts";
import { alreadyRegisteredMail } from "../mail/templates.ts";
import { createOrganization, normalizeEmail } from "../organizations.ts";
import { checkPasswordStrength, hashPassword } from "../passwords.ts";
import { newId } from "../secret-tokens.ts";
import { mailVerificationLink } from "./mail-verification-link.ts";
import { sendAccountMail } from "./send-account-mail.ts";

/**
 * A new organisation (with its `default` project) and its owner, whose address is not verified
 * until the mailed link is opened. When the mail cannot be sent the registration is undone, so the
 * same address can register again.
 *
 * An address that already has a login gets the same 201 (after the same password hash and one
 * mail), so registering tells nobody which addresses have a login: its owner is told by mail
 * instead, with a new verification link if the login is not verified yet. The ids in that answer
 * name nothing stored, as the caller cannot tell them from those of a registration that is never
 * verified.
 */
export async function registerAccount(deps: AccountDeps, input: z.output<typeof RegisterRequest>): Promise<z.input<typeof RegisterResponse>> {
  const email = normalizeEmail(input.email);
  if ((await members.findMemberCredentials(deps.db, email)) === null) {
    try {
      const { orgId, owner } = await createOrganization(deps, {
        name: input.organization_name,
        ownerEmail: email,
        ownerPassword: input.password,
        emailVerified: false,
      });
      await mailVerificationLink(deps, owner, () => organizations.deleteOrganization(deps.db, orgId));
      return { member_id: owner.member_id, org_id: orgId, email: owner.email, email_verified: false };
    } catch (error) {
      // Registered by someone else between the lookup and the insert: answered as any taken address.
      if (!(error instanceof AppError && error.code === "conflict")) throw error;
    }
  } else {
    checkPasswordStrength(input.password);
    await hashPassword(input.password);
  }
  await tellAddressOwner(deps, email);
  return { member_id: newId("mem"), org_id: newId("org"), email, email_verified: false };
}

/** The mail to the owner of a taken address: a new verification link while unverified, else that they already have a login. */
async function tellAddressOwner(deps: AccountDeps, email: string): Promise<void> {
  const existing = await members.findMemberCredentials(deps.db, email);
  if (existing !== null && existing.email_verified_at === null) return mailVerificationLink(deps, existing);
  await sendAccountMail(deps.mailer, alreadyRegisteredMail({ to: email, loginUrl: `${deps.publicUrl}/console` }), async () => {});
}
