import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AccountServices, createAccountServices } from "@als/identity";
import { startOidcProvider, type TestOidcAccount, type TestOidcProvider } from "@als/test-support/oidc-provider.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { startSmtpServer, type TestSmtpServer } from "@als/test-support/smtp-server.ts";
import { bearer } from "@als/test-support/tenants.ts";
import { createLogger } from "../../src/logger.ts";

// Third-party sign-in through a real OpenID Connect provider (oidc-provider) on 127.0.0.1.

const REDIRECT_URI = "http://localhost/api/account/oidc/callback";
const PASSWORD = "correct horse battery";
const people = new Map<string, TestOidcAccount>();

let provider: TestOidcProvider;
let smtp: TestSmtpServer;
let accounts: AccountServices;
let svc: TestService;

beforeAll(async () => {
  provider = await startOidcProvider({ clientId: "portal", clientSecret: "portal-secret", redirectUri: REDIRECT_URI, accounts: people });
  smtp = await startSmtpServer();
  accounts = await createAccountServices(
    {
      publicUrl: "http://localhost",
      mail: { smtpUrl: smtp.url, from: "portal@als.test" },
      oidc: { issuer: provider.issuer, clientId: "portal", clientSecret: "portal-secret", redirectUri: REDIRECT_URI },
    },
    createLogger("error"),
  );
  svc = await startTestService({ authMode: "required", accounts });
});
afterAll(async () => {
  await svc.close();
  await accounts.mailer.close();
  await smtp.close();
  await provider.close();
});

let subjects = 0;
/** A person the provider knows; returns their subject. */
function person(email: string, emailVerified = true): string {
  const subject = `subject-${++subjects}`;
  people.set(subject, { email, email_verified: emailVerified });
  return subject;
}
const newAddress = () => `oidc-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** Begins a sign-in here, signs in at the provider as `subject`, and returns where the browser comes back to. */
async function signInAtProvider(subject: string): Promise<string> {
  const begun = await svc.call("GET", "/api/account/oidc/authorize");
  expect(begun.status).toBe(200);
  const callback = await provider.signIn(begun.body.authorization_url, subject);
  return `${callback.pathname}${callback.search}`;
}

const finish = (callbackPath: string) => svc.call("GET", callbackPath);

describe("third-party sign-in", () => {
  test("authorize answers the provider's URL with state, nonce and a PKCE challenge, and remembers them for ten minutes", async () => {
    const begun = await svc.call("GET", "/api/account/oidc/authorize");
    const url = new URL(begun.body.authorization_url);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get("client_id")).toBe("portal");
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT_URI);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const state = url.searchParams.get("state")!;
    const [row] = await svc.db.query<{ expires_at: number }>("SELECT expires_at FROM oidc_sign_ins WHERE state = $1", [state]);
    expect(row?.expires_at).toBe(svc.clock.now + 600);
  });

  test("a new verified address gets a new organisation it owns, without a password; signing in again is the same member", async () => {
    const email = newAddress();
    const subject = person(email);
    const first = await finish(await signInAtProvider(subject));
    expect(first).toEqual({
      status: 200,
      body: {
        token: expect.stringMatching(/^alss_/),
        expires_at: expect.any(Number),
        member_id: expect.any(String),
        org_id: expect.any(String),
        role: "owner",
      },
    });
    const me = await svc.call("GET", "/api/account/me", undefined, bearer(first.body.token));
    expect(me.body).toMatchObject({ email, role: "owner", organization_name: email, projects: [{ project_id: "default" }] });
    expect((await svc.call("POST", "/api/account/login", { email, password: PASSWORD })).status).toBe(401);

    // The subject is the person: a changed address at the provider still signs in the same member.
    people.set(subject, { email: newAddress(), email_verified: true });
    const again = await finish(await signInAtProvider(subject));
    expect(again.body).toMatchObject({ member_id: first.body.member_id, org_id: first.body.org_id });
  });

  test("an invited address cannot use third-party sign-in (403), and nothing is created", async () => {
    const owner = await finish(await signInAtProvider(person(newAddress())));
    const invited = newAddress();
    expect((await svc.call("POST", "/api/account/invitations", { email: invited, role: "member" }, bearer(owner.body.token))).status).toBe(201);
    const mail = await smtp.waitForMail(invited, 5_000);
    const token = new URL(/http\S+/.exec(mail.text)![0]).searchParams.get("token")!;
    expect((await svc.call("POST", "/api/account/invitations/accept", { token, password: PASSWORD })).status).toBe(201);
    const organizations = (await svc.db.query("SELECT 1 FROM organizations")).length;

    const refused = await finish(await signInAtProvider(person(invited)));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("invited addresses cannot use third-party sign-in");
    expect((await svc.db.query("SELECT 1 FROM organizations")).length).toBe(organizations);
    expect((await svc.db.query("SELECT 1 FROM members WHERE oidc_subject IS NOT NULL AND email = $1", [invited])).length).toBe(0);
  });

  test("an address that has a password login is not linked to a provider account (403)", async () => {
    const email = newAddress();
    expect((await svc.call("POST", "/api/account/register", { email, password: PASSWORD, organization_name: "Passworded" })).status).toBe(201);
    const refused = await finish(await signInAtProvider(person(email.toUpperCase())));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("already has a login");
  });

  test("an address the provider has not verified is refused (403) and creates nothing", async () => {
    const email = newAddress();
    const refused = await finish(await signInAtProvider(person(email, false)));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("not verified");
    expect((await svc.db.query("SELECT 1 FROM members WHERE email = $1", [email])).length).toBe(0);
  });

  test("a callback is redeemed once; an unknown or expired state is 404", async () => {
    const callback = await signInAtProvider(person(newAddress()));
    expect((await finish(callback)).status).toBe(200);
    expect((await finish(callback)).status).toBe(404);
    expect((await finish("/api/account/oidc/callback?state=made-up&code=x")).status).toBe(404);

    const late = await signInAtProvider(person(newAddress()));
    svc.clock.now += 601;
    try {
      const expired = await finish(late);
      expect(expired.status).toBe(404);
      expect(expired.body.detail).toContain("expired");
    } finally {
      svc.clock.now -= 601;
    }
  });

  test("a code the provider does not redeem is 401 naming the failure", async () => {
    const callback = new URL(await signInAtProvider(person(newAddress())), "http://localhost");
    callback.searchParams.set("code", "forged-code");
    const refused = await finish(`${callback.pathname}${callback.search}`);
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toContain("OpenID Connect sign-in failed");
  });

  test("a callback without state answers 422 naming state", async () => {
    const response = await finish("/api/account/oidc/callback?code=abc");
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("state");
  });
});

describe("without OpenID Connect settings", () => {
  test("both routes answer 501 naming OIDC_ISSUER", async () => {
    const plain = await startTestService({ authMode: "required" });
    try {
      for (const path of ["/api/account/oidc/authorize", "/api/account/oidc/callback?state=s&code=c"]) {
        const response = await plain.call("GET", path);
        expect({ path, status: response.status }).toEqual({ path, status: 501 });
        expect(response.body).toMatchObject({ error: "not_implemented", detail: expect.stringContaining("OIDC_ISSUER") });
      }
    } finally {
      await plain.close();
    }
  });
});
