import * as openid from "openid-client";
import { OidcSignInError } from "./oidc-sign-in-error.ts";

export interface OidcSettings {
  /** The provider's issuer identifier; its discovery document is fetched from it. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registered at the provider; the callback route of this service. */
  redirectUri: string;
}

/** What `begin` hands out and `finish` needs back: kept server-side (or sealed) for the one browser that started the sign-in. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Who the provider says signed in: `issuer` + `subject` identify the person, the email may change. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string;
  emailVerified: boolean;
}

export interface OidcClient {
  /** A fresh state, nonce and PKCE verifier, and the provider URL to send the browser to. */
  begin(): Promise<{ authorizationUrl: string; pending: PendingSignIn }>;
  /** Checks the callback against `pending`, redeems the code and returns the validated identity; throws OidcSignInError. */
  finish(callbackUrl: URL, pending: PendingSignIn): Promise<OidcIdentity>;
}

const SCOPE = "openid email";
/** Seconds (openid-client's unit) any request to the provider may take: discovery, token, userinfo. */
const REQUEST_TIMEOUT_SECONDS = 10;
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The authorization code flow with PKCE (S256), state and nonce, through openid-client, which
 * validates the ID token (signature against the provider's keys, issuer, audience, expiry, nonce).
 * Discovery runs once here, so a wrong issuer fails at startup rather than at the first sign-in.
 */
export async function createOidcClient(settings: OidcSettings): Promise<OidcClient> {
  const issuer = checkIssuerUrl(settings.issuer);
  const config = await openid
    .discovery(issuer, settings.clientId, undefined, openid.ClientSecretBasic(settings.clientSecret), {
      timeout: REQUEST_TIMEOUT_SECONDS,
      execute: issuer.protocol === "http:" ? [openid.allowInsecureRequests] : [],
    })
    .catch((error) => {
      throw new Error(`OpenID Connect discovery at ${settings.issuer} failed: ${describeFailure(error)}`, { cause: error });
    });

  return {
    async begin() {
      const pending: PendingSignIn = { state: openid.randomState(), nonce: openid.randomNonce(), codeVerifier: openid.randomPKCECodeVerifier() };
      const authorizationUrl = openid.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: SCOPE,
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await openid.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: "S256",
      });
      return { authorizationUrl: authorizationUrl.href, pending };
    },

    async finish(callbackUrl, pending) {
      // The token request must repeat the registered redirect URI exactly; behind a proxy the URL
      // the server saw may differ in scheme or host, so only the callback's parameters are taken.
      const callback = new URL(settings.redirectUri);
      callback.search = callbackUrl.search;
      let tokens: Awaited<ReturnType<typeof openid.authorizationCodeGrant>>;
      try {
        tokens = await openid.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new OidcSignInError(`OpenID Connect sign-in failed: ${describeFailure(error)}`, { cause: error });
      }
      // idTokenExpected makes the library refuse a response without one.
      const claims = tokens.claims()!;
      const contact = typeof claims.email === "string" ? claims : await fetchContactClaims(config, tokens.access_token, claims.sub);
      if (typeof contact.email !== "string" || contact.email === "") {
        throw new OidcSignInError(
          `OpenID Connect sign-in failed: the provider gave no email for subject ${claims.sub} (is the "email" scope allowed for this client?)`,
        );
      }
      // Some providers send the flag as the string "true".
      const emailVerified = contact.email_verified === true || contact.email_verified === "true";
      return { issuer: claims.iss, subject: claims.sub, email: contact.email, emailVerified };
    },
  };
}

/**
 * Providers that follow the core spec strictly put scope-requested claims such as `email` only in
 * the userinfo answer when an access token is issued, not in the ID token.
 */
async function fetchContactClaims(config: openid.Configuration, accessToken: string, subject: string): Promise<{ email?: unknown; email_verified?: unknown }> {
  try {
    return await openid.fetchUserInfo(config, accessToken, subject);
  } catch (error) {
    throw new OidcSignInError(`OpenID Connect sign-in failed: the userinfo request failed: ${describeFailure(error)}`, { cause: error });
  }
}

/**
 * The issuer must be https: the discovery document names the keys ID tokens are checked against,
 * so a plain-http issuer lets anyone on the path sign in as anyone. Plain http is allowed only on
 * the loopback interface, where nobody else is on the path: tests and a provider run locally.
 */
function checkIssuerUrl(issuer: string): URL {
  const url = new URL(issuer);
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return url;
  throw new Error(`the OpenID Connect issuer must be an https URL (plain http only on 127.0.0.1 or localhost), not ${issuer}`);
}

/** The library's message plus the provider's OAuth error code and description when it sent them. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { error: code, error_description: description } = error as { error?: unknown; error_description?: unknown };
  const fromProvider = typeof code === "string" ? ` (provider said ${code}${typeof description === "string" ? `: ${description}` : ""})` : "";
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${fromProvider}${cause}`;
}
