import { expect } from "bun:test";
import { type AccountServices, createAccountServices } from "@als/identity";
import { createLogger } from "../../apps/server/src/logger.ts";
import { startTestService, type TestService, type TestServiceOptions } from "./service.ts";
import { startSmtpServer, type TestSmtpServer } from "./smtp-server.ts";

export const PORTAL_PASSWORD = "correct horse battery";

/**
 * The account endpoints as the portal calls them: the real app in hosted mode (AUTH_MODE=required)
 * with its mails sent over SMTP to a real server on 127.0.0.1, and the steps every account test
 * repeats (a fresh address, the token of a mailed link, a verified owner with a session).
 */
export async function startAccountPortal(addressPrefix: string, options: TestServiceOptions = {}) {
  const smtp: TestSmtpServer = await startSmtpServer();
  const accounts: AccountServices = await createAccountServices(
    { publicUrl: "http://localhost", mail: { smtpUrl: smtp.url, from: "portal@als.test" } },
    createLogger("error"),
  );
  const svc: TestService = await startTestService({ ...options, authMode: "required", accounts });
  let addresses = 0;

  const newAddress = () => `${addressPrefix}-${++addresses}-${crypto.randomUUID().slice(0, 8)}@example.com`;

  /** The token of the last mail to `email` that carries a link with `path`. */
  async function mailedToken(email: string, path: string): Promise<string> {
    await smtp.waitForMail(email, 5_000);
    const mail = smtp.messages.filter((each) => each.to === email).at(-1)!;
    const link = new RegExp(`https?://\\S+${path}\\?token=\\S+`).exec(mail.text)?.[0];
    if (!link) throw new Error(`no ${path} link in: ${mail.text}`);
    return new URL(link).searchParams.get("token")!;
  }

  /** A registered, verified owner of a new organisation and a login session. */
  async function signUp(organizationName = "Acme") {
    const email = newAddress();
    const registered = await svc.call("POST", "/api/account/register", { email, password: PORTAL_PASSWORD, organization_name: organizationName });
    expect(registered.status).toBe(201);
    expect((await svc.call("GET", `/api/account/verify-email?token=${await mailedToken(email, "/api/account/verify-email")}`)).status).toBe(200);
    const session = await svc.call("POST", "/api/account/login", { email, password: PORTAL_PASSWORD });
    expect(session.status).toBe(200);
    return { email, orgId: registered.body.org_id as string, memberId: registered.body.member_id as string, token: session.body.token as string };
  }

  async function close(): Promise<void> {
    await svc.close();
    await accounts.mailer.close();
    await smtp.close();
  }

  return { smtp, accounts, svc, newAddress, mailedToken, signUp, close };
}

export type AccountPortal = Awaited<ReturnType<typeof startAccountPortal>>;
