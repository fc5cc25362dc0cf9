import { AGENT_CREDENTIALS, AppError, type CredentialKind, type Endpoint } from "@als/contract";
import { LOCAL_SCOPE, organizations, type Scope } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import { credentialKindOf, type Principal } from "./principal.ts";
import { resolveCredential } from "./resolve-credential.ts";

/**
 * `local` (the embedded default): a request without a credential is the local organisation, on
 * every endpoint an API key may call; `required` (hosted): it is 401. A credential that is sent is
 * verified in both.
 */
export type AuthMode = "local" | "required";

/** What the resolver reads of a request; handlers never see headers. */
export interface CredentialHeaders {
  authorization: string | null;
  /** X-Service-Project: must match the credential's project; it never selects one for an API key. */
  project: string | null;
}

export interface Authorized {
  principal: Principal;
  scope: Scope;
}

const DESCRIPTIONS: Record<CredentialKind, string> = {
  api_key: "a full-access API key",
  limited_api_key: "a limited API key",
  login_session: "a login session",
  governance_session: "a governance session",
};

/**
 * The one resolver: the principal and the scope of a request for `endpoint`, or the AppError that
 * answers it (401 no or bad credential, 403 a credential the endpoint does not accept or a project
 * header that does not match, 404 a project the caller's organisation does not have). The scope
 * comes from the credential and nothing else.
 */
export async function authorizeRequest(
  deps: IdentityDeps,
  mode: AuthMode,
  endpoint: Endpoint,
  headers: CredentialHeaders,
  pathParams: Record<string, string>,
): Promise<Authorized> {
  const token = bearerToken(headers.authorization);
  if (endpoint.public) return { principal: { kind: "anonymous" }, scope: LOCAL_SCOPE };
  if (token === null) {
    if (mode === "required") throw new AppError("unauthorized", "this endpoint needs a credential: send Authorization: Bearer <API key or session token>");
    // The local organisation stands where an API key would; what needs a member (the account,
    // onboarding, governance) needs a log-in even on a local server.
    if (!acceptsApiKeys(endpoint))
      throw new AppError("unauthorized", `${endpoint.procedure} needs a login session: log in and send Authorization: Bearer <session token>`);
    return { principal: { kind: "local" }, scope: await projectScope(deps, LOCAL_SCOPE.orgId, requestedProject(endpoint, headers, pathParams)) };
  }
  const principal = await resolveCredential(deps, token);
  if (principal === null) throw new AppError("unauthorized", "the credential is unknown, revoked or expired");
  checkCredentialKind(endpoint, principal);
  const requested = requestedProject(endpoint, headers, pathParams);
  if (principal.kind === "api_key") {
    // A key reaches the one project it is bound to; a header or URL naming another is refused,
    // after checking the project exists in the key's organisation (another organisation's is 404).
    if (requested !== null && requested !== principal.projectId) {
      await projectScope(deps, principal.orgId, requested);
      throw new AppError("forbidden", `this API key is bound to project ${principal.projectId}, not ${requested}`);
    }
    return { principal, scope: { orgId: principal.orgId, projectId: principal.projectId } };
  }
  return { principal, scope: await projectScope(deps, principal.orgId, requested) };
}

/** The token of `Authorization: Bearer <token>`; null without the header; 401 for any other form. */
function bearerToken(authorization: string | null): string | null {
  if (authorization === null || authorization.trim() === "") return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new AppError("unauthorized", "Authorization must be `Bearer <credential>`");
  return match[1]!;
}

/**
 * The project a request names: on `/api/projects/{project_id}/...` the URL's, which X-Service-Project
 * must repeat; elsewhere the header's, if any. Null: the credential's own (a key's, or `default`).
 */
function requestedProject(endpoint: Endpoint, headers: CredentialHeaders, pathParams: Record<string, string>): string | null {
  if (endpoint.projectPathParam === undefined) return headers.project;
  const inUrl = pathParams[endpoint.projectPathParam]!;
  if (headers.project === null && endpoint.projectHeader === "optional") return inUrl;
  if (headers.project !== inUrl) {
    throw new AppError("forbidden", `X-Service-Project must be sent and equal the project in the URL (${inUrl})`);
  }
  return inUrl;
}

function acceptsApiKeys(endpoint: Endpoint): boolean {
  const accepted: readonly CredentialKind[] = endpoint.credentials ?? AGENT_CREDENTIALS;
  return accepted.includes("api_key") || accepted.includes("limited_api_key");
}

function checkCredentialKind(endpoint: Endpoint, principal: Principal): void {
  const kind = credentialKindOf(principal)!;
  const accepted: readonly CredentialKind[] = endpoint.credentials ?? AGENT_CREDENTIALS;
  // A governance session is a member's session too: it serves wherever a login session does.
  const acceptedHere = accepted.includes(kind) || (kind === "governance_session" && accepted.includes("login_session"));
  if (!acceptedHere) {
    throw new AppError("forbidden", `${endpoint.procedure} accepts ${accepted.map((each) => DESCRIPTIONS[each]).join(" or ")}, not ${DESCRIPTIONS[kind]}`);
  }
  if (accepted.includes("governance_session") && principal.kind === "session" && kind === "governance_session") {
    // Re-checked on every request: a demoted admin or a withdrawn entitlement ends governance at once.
    if (principal.role === "member") throw new AppError("forbidden", "governance needs an admin or owner of the organisation");
    if (!principal.governanceEntitled) throw new AppError("forbidden", "the organisation does not hold the governance entitlement");
  }
}

async function projectScope(deps: IdentityDeps, orgId: string, projectId: string | null): Promise<Scope> {
  const scope = { orgId, projectId: projectId ?? "default" };
  if (projectId !== null && !(await organizations.projectExists(deps.db, orgId, projectId))) throw AppError.notFound(`project ${projectId}`);
  return scope;
}
