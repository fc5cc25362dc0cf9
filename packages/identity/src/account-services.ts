import type { IdentityDeps } from "./identity-deps.ts";
import { createMailer, type Mailer, type MailLog, type MailSettings } from "./mail/mailer.ts";
import { createOidcClient, type OidcClient, type OidcSettings } from "./oidc/oidc-client.ts";

/** What the account endpoints need of the process beyond the database: mail, third-party sign-in, their own address. */
export interface AccountServices {
  mailer: Mailer;
  /** Undefined: no OpenID Connect provider is configured, third-party sign-in answers 501. */
  oidc: OidcClient | undefined;
  /** Where the service is reached from outside, without a trailing slash: the links of the mails point there. */
  publicUrl: string;
}

/** The dependencies of the account domain functions. */
export type AccountDeps = IdentityDeps & AccountServices;

export interface AccountSettings {
  publicUrl: string;
  mail: MailSettings;
  oidc?: OidcSettings | undefined;
}

/** The account services of a server process, from its settings; OpenID discovery runs here, so a wrong issuer fails at startup. */
export async function createAccountServices(settings: AccountSettings, log: MailLog): Promise<AccountServices> {
  return {
    mailer: createMailer(settings.mail, log),
    oidc: settings.oidc ? await createOidcClient(settings.oidc) : undefined,
    publicUrl: settings.publicUrl.replace(/\/+$/, ""),
  };
}

/** The account services of an app built without settings (tests, benchmarks): mails logged, no third-party sign-in. */
export function localAccountServices(log: MailLog): AccountServices {
  return { mailer: createMailer({ from: "Agent learning service <no-reply@localhost>" }, log), oidc: undefined, publicUrl: "http://localhost:8081" };
}
