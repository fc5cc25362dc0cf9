import { AppError } from "@als/contract";
import type { AccountServices } from "../account-services.ts";
import type { OidcClient } from "../oidc/oidc-client.ts";

/** The configured OpenID Connect client, or 501 naming the settings that switch third-party sign-in on. */
export function requireOidc(services: Pick<AccountServices, "oidc">): OidcClient {
  if (services.oidc === undefined) {
    throw new AppError(
      "not_implemented",
      "third-party sign-in is not configured on this server: set OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_REDIRECT_URI",
    );
  }
  return services.oidc;
}
