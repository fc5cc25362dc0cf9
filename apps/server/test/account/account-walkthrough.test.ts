import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AccountServices, createAccountServices } from "@als/identity";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { startSmtpServer, type TestSmtpServer } from "@als/test-support/smtp-server.ts";
import { createLogger } from "../../src/logger.ts";

// The hosted walk-through over real HTTP, as a new customer goes through it: register, open the
// link of the verification mail, log in, create a key, publish and search with it; a second
// organisation's key sees nothing of the first.

let smtp: TestSmtpServer;
let accounts: AccountServices;
let svc: TestService;
let server: ReturnType<typeof Bun.serve>;
let baseUrl: string;

beforeAll(async () => {
  smtp = await startSmtpServer();
  // Listening first: the links of the mails must carry the port the server got.
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => svc.app.handle(request) });
  baseUrl = `http://127.0.0.1:${server.port}`;
  accounts = await createAccountServices({ publicUrl: baseUrl, mail: { smtpUrl: smtp.url, from: "portal@als.test" } }, createLogger("error"));
  svc = await startTestService({ authMode: "required", accounts });
});
afterAll(async () => {
  await server.stop(true);
  await svc.close();
  await accounts.mailer.close();
  await smtp.close();
});

/** One HTTP exchange, printed as the walk-through goes. */
async function http(method: string, url: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url.startsWith("http") ? url : `${baseUrl}${url}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const path = new URL(url, baseUrl);
  console.log(`${method} ${path.pathname}${path.search.replace(/token=[^&]+/, "token=…")} → ${response.status}`);
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Registers an organisation, follows the link of its verification mail, logs in and creates a key. */
async function onboard(email: string, organizationName: string): Promise<{ orgId: string; key: string }> {
  const registered = await http("POST", "/api/account/register", { email, password: "correct horse battery", organization_name: organizationName });
  expect(registered.status).toBe(201);
  const mail = await smtp.waitForMail(email, 5_000);
  const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
  expect(link).toStartWith(`${baseUrl}/api/account/verify-email?token=`);
  const verified = await http("GET", link!);
  expect(verified.body).toEqual({ verified: true, email });
  const session = await http("POST", "/api/account/login", { email, password: "correct horse battery" });
  expect(session.status).toBe(200);
  const created = await http("POST", "/api/account/api-keys", { name: "agent" }, session.body.token);
  expect(created.status).toBe(201);
  const listed = await http("GET", "/api/account/api-keys", undefined, session.body.token);
  expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
  return { orgId: registered.body.org_id, key: created.body.key };
}

describe("the hosted walk-through over real HTTP (AUTH_MODE=required)", () => {
  test("register → verify by mail → log in → key → publish and search; another organisation sees nothing", async () => {
    const first = await onboard("founder@first.example", "First");

    expect((await http("POST", "/api/search", { query: "flight", user_id: "ana" })).status).toBe(401);
    const published = await http(
      "POST",
      "/api/publish_interaction",
      {
        user_id: "ana",
        session_id: "s-1",
        interaction_data_list: [
          { role: "User", content: "Book me a window seat to Lisbon" },
          { role: "Agent", content: "Booked 14A" },
        ],
      },
      first.key,
    );
    expect(published.status).toBe(200);
    const added = await http("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "ana", content: "Prefers window seats on flights" }] }, first.key);
    expect(added.status).toBe(200);
    const found = await http("POST", "/api/search", { query: "which seat on a flight", user_id: "ana", search_mode: "vector", threshold: 0 }, first.key);
    expect(found.body.profiles.map((profile: { content: string }) => profile.content)).toEqual(["Prefers window seats on flights"]);
    const own = await http("POST", "/api/get_interactions", { user_id: "ana" }, first.key);
    expect(own.body.interactions.map((interaction: { content: string }) => interaction.content).sort()).toEqual([
      "Book me a window seat to Lisbon",
      "Booked 14A",
    ]);
    expect((await http("GET", "/api/whoami", undefined, first.key)).body.org_id).toBe(first.orgId);

    const second = await onboard("founder@second.example", "Second");
    expect(second.orgId).not.toBe(first.orgId);
    const theirs = await http("POST", "/api/search", { query: "which seat on a flight", user_id: "ana", search_mode: "vector", threshold: 0 }, second.key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.profiles).toEqual([]);
    expect(theirs.body.user_playbooks ?? []).toEqual([]);
    expect(theirs.body.agent_playbooks ?? []).toEqual([]);
    const none = await http("POST", "/api/get_interactions", { user_id: "ana" }, second.key);
    expect(none.status).toBe(200);
    expect(none.body.interactions).toEqual([]);
  });
});
