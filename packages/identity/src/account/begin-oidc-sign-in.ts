import type { OidcAuthorizeResponse } from "@als/contract";
import { oidcSignIns } from "@als/db";
import type { z } from "zod";
import type { AccountDeps } from "../account-services.ts";
import { ACCOUNT_TOKEN_LIFETIME_SECONDS } from "./account-token-lifetimes.ts";
import { requireOidc } from "./require-oidc.ts";

/**
 * Begins a third-party sign-in: the provider URL to send the browser to. Its state, nonce and PKCE
 * verifier stay in the database (any API process may receive the callback), for ten minutes.
 */
export async function beginOidcSignIn(deps: AccountDeps): Promise<z.input<typeof OidcAuthorizeResponse>> {
  const { authorizationUrl, pending } = await requireOidc(deps).begin();
  const now = deps.now();
  await oidcSignIns.insertOidcSignIn(
    deps.db,
    { state: pending.state, nonce: pending.nonce, code_verifier: pending.codeVerifier, expires_at: now + ACCOUNT_TOKEN_LIFETIME_SECONDS.oidcSignIn },
    now,
  );
  return { authorization_url: authorizationUrl };
}
