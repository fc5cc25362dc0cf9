import { AppError } from "@als/contract";
import { signInAttempts } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import { verifyPassword } from "./passwords.ts";
import type { RateLimit } from "./rate-limiter.ts";

/**
 * How wrong passwords lock an account, counted in the database so that every API process sees the
 * same count. Two limits, so that someone else's guessing never locks the member out:
 * - from one address, `perAddress` wrong passwords in the window lock the account for that address
 *   only (a typist at the keyboard, or one guessing machine);
 * - from every address together, `perAccount` wrong passwords lock it for the addresses the member
 *   has not signed in from with the right password in the last `knownForSeconds` (guessing spread
 *   over many machines). An address the member signed in from keeps working.
 */
export const ACCOUNT_LOCK = {
  windowSeconds: 15 * 60,
  perAddress: 10,
  perAccount: 50,
  knownForSeconds: 90 * 24 * 3600,
} as const;

/** The address a request without a socket (in process) is counted under. */
const IN_PROCESS = "in-process";

/**
 * One sign-in attempt from `clientAddress` (log in, register, any public endpoint, and every
 * password check of a signed-in member): 429 naming the address when its bucket is empty.
 */
export async function takeSignInAttempt(deps: IdentityDeps, clientAddress: string, limit: RateLimit): Promise<void> {
  const waitSeconds = await signInAttempts.takeAddressToken(deps.db, clientAddress, limit, deps.now());
  if (waitSeconds > 0) {
    throw new AppError(
      "rate_limited",
      `too many sign-in attempts from the address ${clientAddress}: at most ${limit.burst} at once, then ${limit.perSecond} a second`,
      { retry_after: waitSeconds },
    );
  }
}

export type PasswordCheck = "right" | "wrong" | "locked";

/**
 * Checks a member's password under the account lock. The password is hashed even when the account
 * is locked for this address, so that a locked account takes as long to answer as a wrong password;
 * while locked, the attempt is neither checked nor counted.
 */
export async function checkMemberPassword(
  deps: IdentityDeps,
  member: { member_id: string; password_hash: string | null },
  password: string,
  clientAddress: string | null,
): Promise<PasswordCheck> {
  const address = clientAddress ?? IN_PROCESS;
  const now = deps.now();
  const failures = await signInAttempts.countFailures(deps.db, member.member_id, address, now - ACCOUNT_LOCK.windowSeconds);
  const locked =
    failures.fromAddress >= ACCOUNT_LOCK.perAddress ||
    (failures.all >= ACCOUNT_LOCK.perAccount && !(await signInAttempts.isKnownAddress(deps.db, member.member_id, address, now - ACCOUNT_LOCK.knownForSeconds)));
  const matches = await verifyPassword(password, member.password_hash);
  if (locked) return "locked";
  if (!matches) {
    await signInAttempts.recordFailure(deps.db, member.member_id, address, now, now - ACCOUNT_LOCK.windowSeconds);
    return "wrong";
  }
  await signInAttempts.recordSuccess(deps.db, member.member_id, address, now);
  return "right";
}

/**
 * The password check of a signed-in member (governance re-authentication, password change): 401
 * `wrongMessage` for a wrong password, 429 naming the account while it is locked for this address.
 * The member already proved who they are with a session, so saying it is locked tells nothing new.
 */
export async function requireMemberPassword(
  deps: IdentityDeps,
  member: { member_id: string; password_hash: string | null },
  password: string,
  clientAddress: string | null,
  wrongMessage: string,
): Promise<void> {
  const check = await checkMemberPassword(deps, member, password, clientAddress);
  if (check === "wrong") throw new AppError("unauthorized", wrongMessage);
  if (check === "locked") {
    throw new AppError(
      "rate_limited",
      `too many wrong passwords for this account from this address: try again within ${ACCOUNT_LOCK.windowSeconds / 60} minutes, or from an address it signed in from before`,
      { retry_after: ACCOUNT_LOCK.windowSeconds },
    );
  }
}
