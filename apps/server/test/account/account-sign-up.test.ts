import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { type AccountServices, createMailer } from "@als/identity";
import { type AccountPortal, PORTAL_PASSWORD, startAccountPortal } from "@als/test-support/account-portal.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import type { TestSmtpServer } from "@als/test-support/smtp-server.ts";
import { bearer, createTenant } from "@als/test-support/tenants.ts";
import { createLogger } from "../../src/logger.ts";

// Registration, verification, log-in, log-out, the member's own page and the password, through
// the real app with mails sent over SMTP to a real server on 127.0.0.1.

let portal: AccountPortal;
let svc: TestService;
let smtp: TestSmtpServer;
let accounts: AccountServices;
const PASSWORD = PORTAL_PASSWORD;

beforeAll(async () => {
  portal = await startAccountPortal("person");
  ({ svc, smtp, accounts } = portal);
});
afterAll(() => portal.close());

const newAddress = () => portal.newAddress();
const register = (body: object) => svc.call("POST", "/api/account/register", body);
const login = (email: string, password = PASSWORD) => svc.call("POST", "/api/account/login", { email, password });
const me = (token: string) => svc.call("GET", "/api/account/me", undefined, bearer(token));

/** The link of the verification mail sent to `email`, as a path the app serves. */
async function verificationLink(email: string): Promise<string> {
  const mail = await smtp.waitForMail(email, 5_000);
  const link = /https?:\/\/\S+\/api\/account\/verify-email\?token=\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no verification link in: ${mail.text}`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

const signUp = (organizationName = "Acme") => portal.signUp(organizationName);

/** Polls `done` every 20 ms for at most five seconds (a mail is received just after the answer that sent it). */
async function waitFor(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("not within 5 s");
    await Bun.sleep(20);
  }
}
const countRows = async (sql: string, params: unknown[] = []) => (await svc.db.query(sql, params)).length;

describe("POST /api/account/register", () => {
  test("creates the organisation, its default project and the owner, and mails a verification link", async () => {
    const email = "Ann.Example@Example.com";
    const response = await register({ email, password: PASSWORD, organization_name: "Ann's team" });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      member_id: expect.stringMatching(/^mem_/),
      org_id: expect.stringMatching(/^org_/),
      email: "ann.example@example.com",
      email_verified: false,
    });
    const mail = await smtp.waitForMail("ann.example@example.com", 5_000);
    expect(mail.from).toBe("portal@als.test");
    expect(mail.text).toContain("http://localhost/api/account/verify-email?token=alst_");
    const [project] = await svc.db.query<{ project_id: string }>("SELECT project_id FROM projects WHERE org_id = $1", [response.body.org_id]);
    expect(project?.project_id).toBe("default");
    // Only the hash of the mailed token is stored.
    const token = new URL(/http\S+/.exec(mail.text)![0]).searchParams.get("token")!;
    expect(await countRows("SELECT 1 FROM email_verifications WHERE token_hash = $1", [token])).toBe(0);
  });

  test("registration answers the same whether or not the address has a login, in any letter case; the mail tells its owner and nothing is created", async () => {
    const email = newAddress();
    const first = await register({ email, password: PASSWORD, organization_name: "First" });
    expect(first.status).toBe(201);
    await smtp.waitForMail(email, 5_000);
    const organizations = await countRows("SELECT 1 FROM organizations");
    const mailsTo = () => smtp.messages.filter((each) => each.to === email);
    const shape = (body: Record<string, unknown>) => ({ ...body, member_id: typeof body.member_id, org_id: typeof body.org_id });

    // Not verified yet: the owner gets a new verification link, the caller the answer of any registration.
    const unverified = await register({ email: email.toUpperCase(), password: "another password 1", organization_name: "Second" });
    expect(unverified.status).toBe(201);
    expect(shape(unverified.body)).toEqual(shape(first.body));
    expect(unverified.body.org_id).not.toBe(first.body.org_id);
    await waitFor(() => mailsTo().length === 2);
    expect(mailsTo()[1]!.text).toContain("/api/account/verify-email?token=");

    // Verified: the owner is told the address already has a login; the answer is still the same.
    expect((await svc.call("GET", `/api/account/verify-email?token=${await portal.mailedToken(email, "/api/account/verify-email")}`)).status).toBe(200);
    const verified = await register({ email, password: PASSWORD, organization_name: "Third" });
    expect(verified.status).toBe(201);
    expect(shape(verified.body)).toEqual(shape(first.body));
    await waitFor(() => mailsTo().length === 3);
    expect(mailsTo()[2]!.text).toContain("already has a login");
    expect(mailsTo()[2]!.text).not.toContain("token=");

    expect(await countRows("SELECT 1 FROM organizations")).toBe(organizations);
    expect(await countRows("SELECT 1 FROM organizations WHERE org_id = ANY($1)", [[unverified.body.org_id, verified.body.org_id]])).toBe(0);
    expect((await login(email)).status).toBe(200);
  });

  test("bad input answers 422 naming the field and creates nothing", async () => {
    const organizations = await countRows("SELECT 1 FROM organizations");
    const rows: [object, string][] = [
      [{ email: "not an address", password: PASSWORD, organization_name: "X" }, "email"],
      [{ password: PASSWORD, organization_name: "X" }, "email"],
      [{ email: newAddress(), password: "short", organization_name: "X" }, "password"],
      [{ email: newAddress(), password: "x".repeat(257), organization_name: "X" }, "password"],
      [{ email: newAddress(), password: PASSWORD, organization_name: "   " }, "organization_name"],
      [{ email: newAddress(), password: PASSWORD }, "organization_name"],
      [{ email: newAddress(), password: PASSWORD, organization_name: "X", role: "owner" }, "role"],
    ];
    for (const [body, field] of rows) {
      const response = await register(body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
    expect(await countRows("SELECT 1 FROM organizations")).toBe(organizations);
  });

  test("when the mail cannot be sent it answers 503 mail_unavailable and keeps nothing: the address can register again", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const working = accounts.mailer;
    accounts.mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${closedPort}`, from: "portal@als.test" }, createLogger("error"));
    const email = newAddress();
    try {
      const refused = await register({ email, password: PASSWORD, organization_name: "Unlucky" });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ error: "mail_unavailable", detail: expect.stringContaining(`127.0.0.1:${closedPort}`) });
      expect(await countRows("SELECT 1 FROM members WHERE email = $1", [email])).toBe(0);
      expect(await countRows("SELECT 1 FROM organizations WHERE name = 'Unlucky'")).toBe(0);
    } finally {
      accounts.mailer = working;
    }
    expect((await register({ email, password: PASSWORD, organization_name: "Lucky" })).status).toBe(201);
  });
});

describe("GET /api/account/verify-email", () => {
  test("the mailed link verifies the address once; a second use, an unknown or an expired token is 404", async () => {
    const email = newAddress();
    await register({ email, password: PASSWORD, organization_name: "Verifiers" });
    const link = await verificationLink(email);
    expect(await svc.call("GET", link)).toEqual({ status: 200, body: { verified: true, email } });
    expect((await svc.call("GET", link)).status).toBe(404);
    expect((await svc.call("GET", "/api/account/verify-email?token=alst_unknown")).status).toBe(404);

    const late = newAddress();
    await register({ email: late, password: PASSWORD, organization_name: "Late" });
    const lateLink = await verificationLink(late);
    svc.clock.now += 24 * 3600 + 1;
    try {
      const expired = await svc.call("GET", lateLink);
      expect(expired.status).toBe(404);
      expect(expired.body.detail).toContain("expired");
    } finally {
      svc.clock.now -= 24 * 3600 + 1;
    }
    expect((await login(late)).status).toBe(403);
  });

  test("without a token it answers 422 naming token", async () => {
    const response = await svc.call("GET", "/api/account/verify-email");
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("token");
  });
});

describe("POST /api/account/verification-mail", () => {
  const resend = (email: string) => svc.call("POST", "/api/account/verification-mail", { email });

  test("mails a new link to an unverified login, which verifies it; the answer is the same for any address", async () => {
    const email = newAddress();
    expect((await register({ email, password: PASSWORD, organization_name: "Late" })).status).toBe(201);
    await smtp.waitForMail(email, 5_000);
    const mailsBefore = smtp.messages.length;
    expect(await resend(email.toUpperCase())).toEqual({ status: 202, body: { accepted: true } });
    await Bun.sleep(50);
    expect(smtp.messages.length).toBe(mailsBefore + 1);
    const link = await verificationLink(email);
    expect((await svc.call("GET", link)).status).toBe(200);
    expect((await login(email)).status).toBe(200);

    // Verified, or unknown: the same answer, and no mail.
    const mails = smtp.messages.length;
    expect(await resend(email)).toEqual({ status: 202, body: { accepted: true } });
    expect(await resend(newAddress())).toEqual({ status: 202, body: { accepted: true } });
    await Bun.sleep(50);
    expect(smtp.messages.length).toBe(mails);
  });

  test("a malformed address is 422 naming email", async () => {
    const response = await resend("not-an-address");
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toContain("email");
  });
});

describe("POST /api/account/login", () => {
  test("a verified member gets a session that the account endpoints accept", async () => {
    const { email, orgId, memberId } = await signUp();
    const session = await login(email.toUpperCase());
    expect(session.body).toEqual({
      token: expect.stringMatching(/^alss_/),
      expires_at: svc.clock.now + 7 * 24 * 3600,
      member_id: memberId,
      org_id: orgId,
      role: "owner",
    });
    expect((await me(session.body.token)).status).toBe(200);
  });

  test("a wrong password and an unknown address answer the same 401", async () => {
    const { email } = await signUp();
    const wrong = await login(email, "not the password at all");
    const unknown = await login(newAddress());
    expect(wrong.status).toBe(401);
    expect(unknown).toEqual(wrong);
    expect(wrong.body.detail).toBe("wrong email or password");
  });

  test("an address not verified yet answers 403 saying so, and opens no session", async () => {
    const email = newAddress();
    await register({ email, password: PASSWORD, organization_name: "Unverified" });
    const sessions = await countRows("SELECT 1 FROM login_sessions");
    const response = await login(email);
    expect(response.status).toBe(403);
    expect(response.body.detail).toContain("not verified");
    expect(await countRows("SELECT 1 FROM login_sessions")).toBe(sessions);
  });

  test("a missing field answers 422 naming it", async () => {
    for (const [body, field] of [
      [{ password: PASSWORD }, "email"],
      [{ email: newAddress() }, "password"],
      [{ email: newAddress(), password: "" }, "password"],
    ] as const) {
      const response = await svc.call("POST", "/api/account/login", body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
  });
});

describe("GET /api/account/me and POST /api/account/logout", () => {
  test("me names the member, the organisation and its projects", async () => {
    const { email, orgId, memberId, token } = await signUp("Me Inc");
    const response = await me(token);
    expect(response.body).toEqual({
      member_id: memberId,
      email,
      role: "owner",
      org_id: orgId,
      organization_name: "Me Inc",
      governance_entitled: false,
      projects: [{ project_id: "default", name: "Default", created_at: expect.any(Number) }],
    });
  });

  test("after logout the token is refused at once; other sessions of the member go on", async () => {
    const { email, token } = await signUp();
    const other = (await login(email)).body.token;
    expect(await svc.call("POST", "/api/account/logout", undefined, bearer(token))).toEqual({ status: 200, body: { success: true } });
    expect((await me(token)).status).toBe(401);
    expect((await svc.call("POST", "/api/account/logout", undefined, bearer(token))).status).toBe(401);
    expect((await me(other)).status).toBe(200);
  });

  test("the account endpoints refuse API keys (403) and requests without a session (401), in local mode too", async () => {
    const tenant = await createTenant(svc.deps, "keys-only");
    expect((await me(tenant.fullKey)).status).toBe(403);
    expect((await svc.call("GET", "/api/account/me")).status).toBe(401);
    const local = await startTestService();
    try {
      const response = await local.call("GET", "/api/account/me");
      expect(response.status).toBe(401);
      expect(response.body.detail).toContain("login session");
    } finally {
      await local.close();
    }
  });

  test("the session serves over tRPC as over REST", async () => {
    const { token, memberId } = await signUp();
    const response = await svc.call("GET", "/trpc/account.me", undefined, bearer(token));
    expect(response.body.result.data.member_id).toBe(memberId);
  });
});

describe("POST /api/account/password", () => {
  test("changes the password: a new session, every other session of the member ends, the old password stops working", async () => {
    const { email, token } = await signUp();
    const other = (await login(email)).body.token;
    const changed = await svc.call("POST", "/api/account/password", { current_password: PASSWORD, new_password: "a brand new passphrase" }, bearer(token));
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ token: expect.stringMatching(/^alss_/), expires_at: expect.any(Number) });
    expect((await me(token)).status).toBe(401);
    expect((await me(other)).status).toBe(401);
    expect((await me(changed.body.token)).status).toBe(200);
    expect((await login(email)).status).toBe(401);
    expect((await login(email, "a brand new passphrase")).status).toBe(200);
  });

  test("a wrong current password answers 401 and changes nothing", async () => {
    const { email, token } = await signUp();
    const response = await svc.call(
      "POST",
      "/api/account/password",
      { current_password: "not my password", new_password: "a brand new passphrase" },
      bearer(token),
    );
    expect(response.status).toBe(401);
    expect(response.body.detail).toContain("current_password");
    expect((await me(token)).status).toBe(200);
    expect((await login(email)).status).toBe(200);
  });

  test("a weak new password answers 422 naming new_password and changes nothing", async () => {
    const { email, token } = await signUp();
    for (const [body, field] of [
      [{ current_password: PASSWORD, new_password: "short" }, "new_password"],
      [{ new_password: "a brand new passphrase" }, "current_password"],
    ] as const) {
      const response = await svc.call("POST", "/api/account/password", body, bearer(token));
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
    expect((await login(email)).status).toBe(200);
  });
});
