import type { CredentialKind } from "@als/contract";
import type { ApiKeyAccess, MemberRole } from "@als/db";

/**
 * Who a request is. `local`: no credential in AUTH_MODE=local (the local organisation's owner, as
 * the embedded mode has always been); `anonymous`: no credential on a public endpoint (register,
 * log in); otherwise the API key or the member's session that the bearer token resolved to.
 */
export type Principal =
  | { kind: "local" }
  | { kind: "anonymous" }
  | { kind: "api_key"; keyId: string; orgId: string; projectId: string; access: ApiKeyAccess }
  | {
      kind: "session";
      sessionKind: "login" | "governance";
      sessionId: string;
      memberId: string;
      orgId: string;
      role: MemberRole;
      email: string;
      governanceEntitled: boolean;
    };

export type SessionPrincipal = Extract<Principal, { kind: "session" }>;
export type ApiKeyPrincipal = Extract<Principal, { kind: "api_key" }>;

/** The credential kind an endpoint declaration names for this principal; null without a credential. */
export function credentialKindOf(principal: Principal): CredentialKind | null {
  switch (principal.kind) {
    case "api_key":
      return principal.access === "full" ? "api_key" : "limited_api_key";
    case "session":
      return principal.sessionKind === "governance" ? "governance_session" : "login_session";
    default:
      return null;
  }
}

/** The id evidence and audit rows name the caller by: the key, or the member. */
export function principalIdOf(principal: ApiKeyPrincipal | SessionPrincipal): string {
  return principal.kind === "api_key" ? principal.keyId : principal.memberId;
}

/** How audit rows name who asked: the member or the key by id (never a token), or the local organisation. */
export function actorRefOf(principal: Principal): string {
  if (principal.kind === "session") return `member:${principal.memberId}`;
  if (principal.kind === "api_key") return `api_key:${principal.keyId}`;
  return principal.kind;
}
