import { AppError, type ChangePasswordRequest, type ChangePasswordResponse } from "@als/contract";
import { members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import { checkPasswordStrength, hashPassword } from "../passwords.ts";
import type { SessionPrincipal } from "../principal.ts";
import { openSession } from "../sessions.ts";
import { requireMemberPassword } from "../sign-in-limits.ts";

/**
 * Replaces the member's password after checking the current one (401 when wrong: it re-proves who
 * is at the keyboard). Every session of the member ends, this one included, and the answer is a
 * new session: a password changed because it leaked locks out whoever used it. The check of the
 * current password is a sign-in attempt: it counts toward the account's lock (see ACCOUNT_LOCK).
 */
export async function changePassword(
  deps: IdentityDeps,
  actor: SessionPrincipal,
  input: z.output<typeof ChangePasswordRequest>,
  clientAddress: string | null,
): Promise<z.input<typeof ChangePasswordResponse>> {
  checkPasswordStrength(input.new_password, "new_password");
  const member = await members.findMemberCredentials(deps.db, actor.email);
  if (member === null || member.member_id !== actor.memberId) throw new AppError("unauthorized", "current_password is wrong");
  await requireMemberPassword(deps, member, input.current_password, clientAddress, "current_password is wrong");
  const passwordHash = await hashPassword(input.new_password);
  await deps.db.transaction((tx) => members.replacePassword(tx, member.member_id, passwordHash, deps.now()));
  const session = await openSession(deps, member, "login");
  return { token: session.token, expires_at: session.expires_at };
}
