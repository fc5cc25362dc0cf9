import type { RegisterRequest, RegisterResponse } from "@als/contract";
import { emailVerifications, organizations } from "@als/db";
import type { z } from "zod";
import type { AccountDeps } from "../account-services.ts";
import { verificationMail } from "../mail/templates.ts";
import { createOrganization } from "../organizations.ts";
import { hashSecret, newMailedToken } from "../secret-tokens.ts";
import { ACCOUNT_TOKEN_LIFETIME_SECONDS } from "./account-token-lifetimes.ts";
import { sendAccountMail } from "./send-account-mail.ts";

/**
 * A new organisation (with its `default` project) and its owner, whose address is not verified
 * until the mailed link is opened; 409 when the address already has a login. When the mail cannot
 * be sent the registration is undone, so the same address can register again.
 */
export async function registerAccount(deps: AccountDeps, input: z.output<typeof RegisterRequest>): Promise<z.input<typeof RegisterResponse>> {
  const { orgId, owner } = await createOrganization(deps, {
    name: input.organization_name,
    ownerEmail: input.email,
    ownerPassword: input.password,
    emailVerified: false,
  });
  const token = newMailedToken();
  await emailVerifications.insertEmailVerification(deps.db, {
    token_hash: hashSecret(token),
    member_id: owner.member_id,
    expires_at: deps.now() + ACCOUNT_TOKEN_LIFETIME_SECONDS.emailVerification,
  });
  const link = `${deps.publicUrl}/api/account/verify-email?token=${encodeURIComponent(token)}`;
  await sendAccountMail(deps.mailer, verificationMail({ to: owner.email, link }), () => organizations.deleteOrganization(deps.db, orgId));
  return { member_id: owner.member_id, org_id: orgId, email: owner.email, email_verified: false };
}
