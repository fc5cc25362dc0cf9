import { AppError, type LoginRequest, type MemberSession } from "@als/contract";
import { members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import { normalizeEmail } from "../organizations.ts";
import { verifyPassword } from "../passwords.ts";
import { openSession } from "../sessions.ts";
import { checkMemberPassword } from "../sign-in-limits.ts";

/**
 * A login session for the address and password, from `clientAddress`. An unknown address, a wrong
 * password and an account locked for this client address (see ACCOUNT_LOCK) answer the same 401
 * after the same work (a password is hashed each time), so the answer tells neither which addresses
 * have a login nor which are locked; an address not verified yet is 403, once the password matched.
 */
export async function logIn(deps: IdentityDeps, input: z.output<typeof LoginRequest>, clientAddress: string | null): Promise<z.input<typeof MemberSession>> {
  const member = await members.findMemberCredentials(deps.db, normalizeEmail(input.email));
  if (member === null) {
    await verifyPassword(input.password, null);
    throw new AppError("unauthorized", "wrong email or password");
  }
  if ((await checkMemberPassword(deps, member, input.password, clientAddress)) !== "right") throw new AppError("unauthorized", "wrong email or password");
  if (member.email_verified_at === null) {
    throw new AppError("forbidden", "the email address is not verified yet: open the link of the verification mail first");
  }
  const session = await openSession(deps, member, "login");
  return { token: session.token, expires_at: session.expires_at, member_id: member.member_id, org_id: member.org_id, role: member.role };
}
