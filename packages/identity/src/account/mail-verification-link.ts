import { emailVerifications } from "@als/db";
import type { AccountDeps } from "../account-services.ts";
import { verificationMail } from "../mail/templates.ts";
import { hashSecret, newMailedToken } from "../secret-tokens.ts";
import { ACCOUNT_TOKEN_LIFETIME_SECONDS } from "./account-token-lifetimes.ts";
import { sendAccountMail } from "./send-account-mail.ts";

/**
 * Mails the member a new single-use link that verifies their address. When the mail cannot be
 * sent the token is forgotten and `undo` runs (a registration removes what it made): 503
 * mail_unavailable, and trying again is safe.
 */
export async function mailVerificationLink(
  deps: AccountDeps,
  member: { member_id: string; email: string },
  undo: () => Promise<void> = async () => {},
): Promise<void> {
  const token = newMailedToken();
  const tokenHash = hashSecret(token);
  await emailVerifications.insertEmailVerification(deps.db, {
    token_hash: tokenHash,
    member_id: member.member_id,
    expires_at: deps.now() + ACCOUNT_TOKEN_LIFETIME_SECONDS.emailVerification,
  });
  const link = `${deps.publicUrl}/api/account/verify-email?token=${encodeURIComponent(token)}`;
  await sendAccountMail(deps.mailer, verificationMail({ to: member.email, link }), async () => {
    await emailVerifications.deleteEmailVerification(deps.db, tokenHash);
    await undo();
  });
}
