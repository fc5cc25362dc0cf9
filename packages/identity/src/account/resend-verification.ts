import { members } from "@als/db";
import type { AccountDeps } from "../account-services.ts";
import { normalizeEmail } from "../organizations.ts";
import { mailVerificationLink } from "./mail-verification-link.ts";

/**
 * Mails a new verification link when the address has a login that is not verified yet (the first
 * mail was lost or expired). Answers the same whether or not it did, so the endpoint does not tell
 * who has a login; earlier links stay valid until they expire.
 */
export async function resendVerification(deps: AccountDeps, email: string): Promise<{ accepted: true }> {
  const member = await members.findMemberCredentials(deps.db, normalizeEmail(email));
  if (member !== null && member.email_verified_at === null) await mailVerificationLink(deps, member);
  return { accepted: true };
}
