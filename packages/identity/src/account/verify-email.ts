import { AppError, type VerifyEmailResponse } from "@als/contract";
import { emailVerifications, members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import { hashSecret } from "../secret-tokens.ts";

/** Uses the mailed token once and marks the member's address verified; 404 when unknown, expired or used. */
export async function verifyEmail(deps: IdentityDeps, token: string): Promise<z.input<typeof VerifyEmailResponse>> {
  const now = deps.now();
  const member = await deps.db.transaction(async (tx) => {
    const memberId = await emailVerifications.consumeEmailVerification(tx, hashSecret(token), now);
    if (memberId === null) return null;
    await members.markEmailVerified(tx, memberId, now);
    return members.findMember(tx, memberId);
  });
  if (member === null) throw AppError.notFound("verification link (unknown, expired or already used)");
  return { verified: true, email: member.email };
}
