import { AppError, type MemberSession, type OidcCallbackQuery } from "@als/contract";
import { type MemberRecord, members, oidcSignIns } from "@als/db";
import type { z } from "zod";
import type { AccountDeps } from "../account-services.ts";
import type { OidcIdentity } from "../oidc/oidc-client.ts";
import { OidcSignInError } from "../oidc/oidc-sign-in-error.ts";
import { createOrganization, normalizeEmail } from "../organizations.ts";
import { openSession } from "../sessions.ts";
import { requireOidc } from "./require-oidc.ts";

/**
 * Finishes a third-party sign-in begun here (404 when its state is unknown, expired or used; 401
 * when the provider's answer does not check out) and answers a login session:
 * - a person already linked (same issuer and subject) logs in, whatever their address is now;
 * - a new address the provider verified gets a new organisation with them as its owner;
 * - an address that already has a login is refused (403): invited addresses cannot use
 *   third-party sign-in (the contract), and a password login is never linked to a provider
 *   account by address alone, which would hand it to whoever controls that provider account;
 * - an address the provider did not verify is refused (403).
 */
export async function finishOidcSignIn(deps: AccountDeps, callback: z.output<typeof OidcCallbackQuery>): Promise<z.input<typeof MemberSession>> {
  const oidc = requireOidc(deps);
  const signIn = await oidcSignIns.takeOidcSignIn(deps.db, callback.state, deps.now());
  if (signIn === null) throw AppError.notFound("sign-in (unknown, expired or already finished: start again)");
  let identity: OidcIdentity;
  try {
    identity = await oidc.finish(callbackUrl(deps.publicUrl, callback), { state: signIn.state, nonce: signIn.nonce, codeVerifier: signIn.code_verifier });
  } catch (error) {
    if (error instanceof OidcSignInError) throw new AppError("unauthorized", error.message);
    throw error;
  }
  const member = (await members.findMemberByOidcSubject(deps.db, identity.issuer, identity.subject)) ?? (await createOwnerOf(deps, identity));
  const session = await openSession(deps, member, "login");
  return { token: session.token, expires_at: session.expires_at, member_id: member.member_id, org_id: member.org_id, role: member.role };
}

async function createOwnerOf(deps: AccountDeps, identity: OidcIdentity): Promise<MemberRecord> {
  if (!identity.emailVerified)
    throw new AppError("forbidden", `the identity provider has not verified ${identity.email}: verify it there, or register with a password`);
  const email = normalizeEmail(identity.email);
  const existing = await members.findMemberCredentials(deps.db, email);
  if (existing?.invited)
    throw new AppError("forbidden", "invited addresses cannot use third-party sign-in: log in with the password chosen when accepting the invitation");
  if (existing)
    throw new AppError("forbidden", `${email} already has a login: log in with its password (a third-party sign-in is not linked to an existing login)`);
  const { owner } = await createOrganization(deps, {
    name: email,
    ownerEmail: email,
    ownerPassword: null,
    emailVerified: true,
    oidc: { issuer: identity.issuer, subject: identity.subject },
  });
  return owner;
}

/** The redirect URI as the browser arrived at it: only its query parameters matter to the check. */
function callbackUrl(publicUrl: string, callback: z.output<typeof OidcCallbackQuery>): URL {
  const url = new URL(`${publicUrl}/api/account/oidc/callback`);
  for (const [name, value] of Object.entries(callback)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}
