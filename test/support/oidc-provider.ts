import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type JWK } from "oidc-provider";

/** An account the provider signs in; the map key is its subject (`sub`). */
export interface TestOidcAccount {
  email: string;
  email_verified: boolean;
}

export interface TestOidcProviderOptions {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accounts: Map<string, TestOidcAccount>;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`; discovery lives under `/.well-known/openid-configuration`. */
  issuer: string;
  /**
   * What a browser does between the authorization URL and the redirect back to the client: the
   * provider's login form (as `accountId`, any password) and its consent form, with the cookies
   * carried from answer to answer. Returns the redirect URI the browser would be sent to (with
   * `code` and `state`, or `error`); it is never fetched.
   */
  signIn(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (panva's oidc-provider, the certified implementation) on
 * 127.0.0.1 with one confidential client, so the client is tested against the protocol as a real
 * identity provider speaks it. Its built-in development login and consent pages stand in for a
 * user: they sign in whatever account id is typed in, which `findAccount` resolves from `accounts`.
 */
export async function startOidcProvider(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // A fresh signing key per run, rather than the provider's published development key.
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }) as JWK;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    async findAccount(_ctx, sub) {
      const account = options.accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: account.email_verified }) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    scopes: ["openid", "email"],
    jwks: { keys: [{ ...signingKey, use: "sig", kid: "test-signing-key" }] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    // Required for every client, so a client that stopped sending its code challenge is refused.
    pkce: { required: () => true },
    // Explicit lifetimes (seconds) keep the provider from printing a notice for each default it uses.
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
  });
  server.on("request", provider.callback());

  return {
    issuer,
    signIn: (authorizationUrl, accountId) => driveInteraction(new URL(authorizationUrl), accountId, options.redirectUri),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const MAX_STEPS = 12;

async function driveInteraction(authorizationUrl: URL, accountId: string, redirectUri: string): Promise<URL> {
  const cookies = new Map<string, string>();
  let request: { url: URL; form?: URLSearchParams } = { url: authorizationUrl };
  for (let step = 0; step < MAX_STEPS; step++) {
    const response = await fetch(request.url, {
      method: request.form ? "POST" : "GET",
      body: request.form,
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
      redirect: "manual",
    });
    keepCookies(cookies, response.headers.getSetCookie());
    const location = response.headers.get("location");
    if (location) {
      await response.body?.cancel();
      const next = new URL(location, request.url);
      if (`${next.origin}${next.pathname}` === redirectUri) return next;
      request = { url: next };
      continue;
    }
    const page = await response.text();
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (response.status !== 200 || !prompt) throw new Error(`the provider answered ${response.status} at ${request.url.pathname}: ${page.slice(0, 500)}`);
    const fields: Record<string, string> = prompt === "login" ? { prompt, login: accountId, password: "any password" } : { prompt };
    request = { url: request.url, form: new URLSearchParams(fields) };
  }
  throw new Error(`the provider did not redirect back to ${redirectUri} within ${MAX_STEPS} steps`);
}

/** A cookie jar of one browser: path scoping is ignored, an emptied or expired cookie is forgotten. */
function keepCookies(cookies: Map<string, string>, setCookies: string[]): void {
  for (const header of setCookies) {
    const [pair = "", ...attributes] = header.split(";");
    const separator = pair.indexOf("=");
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    const expires = attributes.find((attribute) => attribute.trim().toLowerCase().startsWith("expires="));
    const expired = expires !== undefined && Date.parse(expires.split("=")[1] ?? "") <= Date.now();
    if (!value || expired) cookies.delete(name);
    else cookies.set(name, value);
  }
}
