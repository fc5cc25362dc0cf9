import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startOidcProvider, type TestOidcProvider } from "@als/test-support/oidc-provider.ts";
import { createOidcClient, type OidcClient } from "../src/oidc/oidc-client.ts";
import { OidcSignInError } from "../src/oidc/oidc-sign-in-error.ts";

const CLIENT = { clientId: "als-test", clientSecret: "a-long-enough-client-secret-for-hs256-0123456789", redirectUri: "http://127.0.0.1:9/oidc/callback" };
const ACCOUNTS = new Map([
  ["user-ann", { email: "ann@example.com", email_verified: true }],
  ["user-bob", { email: "bob@example.com", email_verified: false }],
]);

describe("OpenID Connect client against a real provider", () => {
  let provider: TestOidcProvider;
  let client: OidcClient;
  beforeAll(async () => {
    provider = await startOidcProvider({ ...CLIENT, accounts: ACCOUNTS });
    client = await createOidcClient({ issuer: provider.issuer, ...CLIENT });
  });
  afterAll(async () => {
    await provider.close();
  });

  test("the full flow returns the account's subject and verified email", async () => {
    const { authorizationUrl, pending } = await client.begin();
    const url = new URL(authorizationUrl);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("state")).toBe(pending.state);

    const callback = await provider.signIn(authorizationUrl, "user-ann");
    const identity = await client.finish(callback, pending);
    expect(identity).toEqual({ issuer: provider.issuer, subject: "user-ann", email: "ann@example.com", emailVerified: true });
  });

  test("an unverified email comes back as not verified", async () => {
    const { authorizationUrl, pending } = await client.begin();
    const identity = await client.finish(await provider.signIn(authorizationUrl, "user-bob"), pending);
    expect(identity).toMatchObject({ subject: "user-bob", email: "bob@example.com", emailVerified: false });
  });

  test("a tampered state is refused, naming the state", async () => {
    const { authorizationUrl, pending } = await client.begin();
    const callback = await provider.signIn(authorizationUrl, "user-ann");
    callback.searchParams.set("state", "forged-state");
    const error = await client.finish(callback, pending).catch((caught) => caught);
    expect(error).toBeInstanceOf(OidcSignInError);
    expect(error.message).toContain('"state"');
  });

  test("a replayed code is refused by the provider", async () => {
    const { authorizationUrl, pending } = await client.begin();
    const callback = await provider.signIn(authorizationUrl, "user-ann");
    await client.finish(callback, pending);
    const error = await client.finish(callback, pending).catch((caught) => caught);
    expect(error).toBeInstanceOf(OidcSignInError);
    expect(error.message).toContain("invalid_grant");
  });

  test("a code redeemed with another sign-in's verifier is refused (PKCE)", async () => {
    const first = await client.begin();
    const second = await client.begin();
    const callback = await provider.signIn(first.authorizationUrl, "user-ann");
    const error = await client.finish(callback, { ...first.pending, codeVerifier: second.pending.codeVerifier }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OidcSignInError);
    expect(error.message).toContain("invalid_grant");
  });
});

describe("OpenID Connect issuer", () => {
  test("a plain-http issuer outside the loopback interface is refused before any request", async () => {
    await expect(createOidcClient({ issuer: "http://login.example.com", ...CLIENT })).rejects.toThrow("must be an https URL");
  });
});
