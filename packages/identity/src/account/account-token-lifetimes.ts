/**
 * How long the single-use tokens of the account last: a verification link a day (long enough to
 * find the mail), an invitation a week (the invited person may be away), a third-party sign-in
 * begun ten minutes (a browser round trip through the provider's log-in page).
 */
export const ACCOUNT_TOKEN_LIFETIME_SECONDS = { emailVerification: 24 * 3600, invitation: 7 * 24 * 3600, oidcSignIn: 10 * 60 } as const;
