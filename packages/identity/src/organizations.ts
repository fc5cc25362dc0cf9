import { AppError } from "@als/contract";
import { type MemberRecord, members, organizations } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import { checkPasswordStrength, hashPassword } from "./passwords.ts";
import { newId } from "./secret-tokens.ts";

export interface NewOrganization {
  name: string;
  ownerEmail: string;
  /** Null: the owner signs in through OpenID Connect only. */
  ownerPassword: string | null;
  /** The operator CLI and OpenID sign-ins vouch for the address; registration mails a link first. */
  emailVerified: boolean;
  /** The OpenID Connect identity the owner signs in with, for an organisation made by a first sign-in. */
  oidc?: { issuer: string; subject: string };
}

/** Addresses are compared and stored lowercased: one login per mailbox. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A new organisation with its `default` project and its owner, in one transaction; 409 when the
 * address already has a login (nothing is created then).
 */
export async function createOrganization(deps: IdentityDeps, input: NewOrganization): Promise<{ orgId: string; owner: MemberRecord }> {
  if (input.ownerPassword !== null) checkPasswordStrength(input.ownerPassword);
  const passwordHash = input.ownerPassword === null ? null : await hashPassword(input.ownerPassword);
  const orgId = newId("org");
  const now = deps.now();
  const owner: MemberRecord = {
    member_id: newId("mem"),
    org_id: orgId,
    email: normalizeEmail(input.ownerEmail),
    role: "owner",
    email_verified_at: input.emailVerified ? now : null,
    invited: false,
    created_at: now,
  };
  await deps.db.transaction(async (tx) => {
    await organizations.insertOrganization(tx, { orgId, name: input.name }, now);
    if (!(await members.insertMember(tx, { ...owner, password_hash: passwordHash, oidc_issuer: input.oidc?.issuer, oidc_subject: input.oidc?.subject }, now))) {
      throw new AppError("conflict", `${owner.email} already has a login`);
    }
  });
  return { orgId, owner };
}
