import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { organizations } from "@als/db";
import { ACCOUNT_LOCK } from "@als/identity";
import { type AccountPortal, PORTAL_PASSWORD, startAccountPortal } from "@als/test-support/account-portal.ts";
import type { TestService } from "@als/test-support/service.ts";
import { bearer } from "@als/test-support/tenants.ts";

// Sign-in limits per account and per client address, over real HTTP: the app listens on a port,
// trusts 127.0.0.1 as its balancer, and each simulated client is an X-Forwarded-For address.

let portal: AccountPortal;
let svc: TestService;
let origin: string;

beforeAll(async () => {
  portal = await startAccountPortal("limits", {
    trustedProxies: [{ address: "127.0.0.1", family: "ipv4", prefix: 32 }],
    // The address bucket has its own test below; here it must not be what stops the guessing.
    rateLimits: { sign_in: { perSecond: 1, burst: 1_000 } },
  });
  svc = portal.svc;
  svc.app.listen({ hostname: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${svc.app.server!.port}`;
});
afterAll(async () => {
  await svc.app.stop();
  await portal.close();
});

let clients = 0;
/** A client address of its own (TEST-NET-2), as the balancer forwards it. */
const newClient = () => `198.51.100.${++clients}`;

async function post(client: string, path: string, body: object, token?: string) {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": client, ...(token && bearer(token)) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const login = (client: string, email: string, password: string) => post(client, "/api/account/login", { email, password });
const openGovernance = (client: string, token: string, password: string) => post(client, "/api/account/governance-sessions", { password }, token);
const me = (token: string) => svc.call("GET", "/api/account/me", undefined, bearer(token));

describe("sign-in limits per account and per client address", () => {
  test("a locked account answers the same as a wrong password, even to the right one", async () => {
    const owner = await portal.signUp();
    const guesser = newClient();
    const wrong: unknown[] = [];
    for (let attempt = 0; attempt < ACCOUNT_LOCK.perAddress; attempt++) wrong.push(await login(guesser, owner.email, `wrong guess ${attempt}`));
    expect(wrong.every((answer) => JSON.stringify(answer) === JSON.stringify(wrong[0]))).toBe(true);
    expect(wrong[0]).toEqual({ status: 401, body: expect.objectContaining({ error: "unauthorized", detail: "wrong email or password" }) });
    expect(await login(guesser, owner.email, PORTAL_PASSWORD)).toEqual(wrong[0] as never);
    expect(await login(guesser, owner.email, "another wrong guess")).toEqual(wrong[0] as never);
  });

  test("a correct password from another address is not blocked by someone else's guessing", async () => {
    const owner = await portal.signUp();
    const guesser = newClient();
    for (let attempt = 0; attempt < ACCOUNT_LOCK.perAddress + 3; attempt++) await login(guesser, owner.email, `wrong guess ${attempt}`);
    expect((await login(guesser, owner.email, PORTAL_PASSWORD)).status).toBe(401);
    const fromElsewhere = await login(newClient(), owner.email, PORTAL_PASSWORD);
    expect(fromElsewhere.status).toBe(200);
    expect((await me(fromElsewhere.body.token as string)).status).toBe(200);
  });

  test("guessing spread over many addresses locks the account for new addresses, never for one the member signed in from", async () => {
    const owner = await portal.signUp();
    const ownersAddress = newClient();
    expect((await login(ownersAddress, owner.email, PORTAL_PASSWORD)).status).toBe(200);
    for (let attempt = 0; attempt < ACCOUNT_LOCK.perAccount; attempt++) {
      expect((await login(newClient(), owner.email, `spread guess ${attempt}`)).status).toBe(401);
    }
    const newcomer = newClient();
    expect((await login(newcomer, owner.email, PORTAL_PASSWORD)).body.detail).toBe("wrong email or password");
    expect((await login(ownersAddress, owner.email, PORTAL_PASSWORD)).status).toBe(200);
    // The lock lasts the window: then a new address is heard again.
    svc.clock.now += ACCOUNT_LOCK.windowSeconds;
    try {
      expect((await login(newcomer, owner.email, PORTAL_PASSWORD)).status).toBe(200);
    } finally {
      svc.clock.now -= ACCOUNT_LOCK.windowSeconds;
    }
  });

  test("the governance-session password check shares the sign-in limit: guesses there lock the sign-in, and the reverse", async () => {
    const owner = await portal.signUp();
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, true);
    const guesser = newClient();
    for (let attempt = 0; attempt < ACCOUNT_LOCK.perAddress; attempt++) {
      expect((await openGovernance(guesser, owner.token, `wrong guess ${attempt}`)).status).toBe(401);
    }
    // The sign-in from that address is locked by the governance guesses: the answer of a wrong password.
    expect((await login(guesser, owner.email, PORTAL_PASSWORD)).body.detail).toBe("wrong email or password");
    // The member already proved who they are, so the governance check may say what was limited.
    const locked = await openGovernance(guesser, owner.token, PORTAL_PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.body.detail).toContain("this account");
    expect((await openGovernance(newClient(), owner.token, PORTAL_PASSWORD)).status).toBe(201);

    const other = await portal.signUp();
    await organizations.setGovernanceEntitlement(svc.db, other.orgId, true);
    const otherGuesser = newClient();
    for (let attempt = 0; attempt < ACCOUNT_LOCK.perAddress; attempt++) await login(otherGuesser, other.email, `wrong guess ${attempt}`);
    expect((await openGovernance(otherGuesser, other.token, PORTAL_PASSWORD)).status).toBe(429);
    const none = await svc.db.query("SELECT 1 FROM login_sessions WHERE kind = 'governance' AND org_id = $1", [other.orgId]);
    expect(none.length).toBe(0);
  });

  test("a changed password's check of the current one counts toward the same lock", async () => {
    const owner = await portal.signUp();
    const guesser = newClient();
    for (let attempt = 0; attempt < ACCOUNT_LOCK.perAddress; attempt++) {
      const wrong = await post(guesser, "/api/account/password", { current_password: `wrong guess ${attempt}`, new_password: "a new password 1" }, owner.token);
      expect(wrong.status).toBe(401);
    }
    expect((await login(guesser, owner.email, PORTAL_PASSWORD)).body.detail).toBe("wrong email or password");
    expect((await login(newClient(), owner.email, PORTAL_PASSWORD)).status).toBe(200);
  });
});

describe("the client address bucket, shared through the database", () => {
  let tight: AccountPortal;
  let tightOrigin: string;
  beforeAll(async () => {
    tight = await startAccountPortal("bucket", {
      trustedProxies: [{ address: "127.0.0.1", family: "ipv4", prefix: 32 }],
      rateLimits: { sign_in: { perSecond: 1, burst: 3 } },
    });
    tight.svc.app.listen({ hostname: "127.0.0.1", port: 0 });
    tightOrigin = `http://127.0.0.1:${tight.svc.app.server!.port}`;
  });
  afterAll(async () => {
    await tight.svc.app.stop();
    await tight.close();
  });
  const guess = (client: string) =>
    fetch(`${tightOrigin}/api/account/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": client },
      body: JSON.stringify({ email: "nobody@example.com", password: "guess guess guess" }),
    });

  test("past its burst a client address answers 429 naming the address; another client behind the same balancer is not limited", async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt++) statuses.push((await guess("203.0.113.9")).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const refused = await guess("203.0.113.9");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { detail: string }).detail).toContain("from the address 203.0.113.9");
    expect((await guess("203.0.113.10")).status).toBe(401);
    const [bucket] = await tight.svc.db.query<{ tokens: number }>("SELECT tokens FROM sign_in_address_buckets WHERE client_address = $1", ["203.0.113.9"]);
    expect(Number(bucket?.tokens)).toBeLessThan(1);
  });

  test("the bucket refills with time: one attempt a second", async () => {
    const client = "203.0.113.20";
    for (let attempt = 0; attempt < 3; attempt++) expect((await guess(client)).status).toBe(401);
    expect((await guess(client)).status).toBe(429);
    tight.svc.clock.now += 1;
    try {
      expect((await guess(client)).status).toBe(401);
      expect((await guess(client)).status).toBe(429);
    } finally {
      tight.svc.clock.now -= 1;
    }
  });
});

describe("governance sessions end with what opened them", () => {
  test("logging out ends the governance sessions opened from that login session, and no other", async () => {
    const owner = await portal.signUp();
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, true);
    const governance = await openGovernance(newClient(), owner.token, PORTAL_PASSWORD);
    expect(governance.status).toBe(201);
    const otherLogin = await login(newClient(), owner.email, PORTAL_PASSWORD);
    const otherGovernance = await openGovernance(newClient(), otherLogin.body.token as string, PORTAL_PASSWORD);
    // Opened from a governance session: it belongs to the same login session.
    const nested = await openGovernance(newClient(), governance.body.token as string, PORTAL_PASSWORD);
    expect(nested.status).toBe(201);
    expect((await svc.call("POST", "/api/account/logout", undefined, bearer(owner.token))).status).toBe(200);
    expect((await me(governance.body.token as string)).status).toBe(401);
    expect((await me(nested.body.token as string)).status).toBe(401);
    expect((await svc.call("POST", "/api/governance/erase-user", { user_id: "u", confirm_user_id: "u" }, bearer(governance.body.token as string))).status).toBe(
      401,
    );
    expect((await me(otherGovernance.body.token as string)).status).toBe(200);
  });

  test("withdrawing the governance entitlement ends the organisation's governance sessions, where a login session is accepted too", async () => {
    const owner = await portal.signUp();
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, true);
    const governance = await openGovernance(newClient(), owner.token, PORTAL_PASSWORD);
    expect((await me(governance.body.token as string)).status).toBe(200);
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, false);
    expect((await me(governance.body.token as string)).status).toBe(401);
    expect((await svc.call("GET", "/api/account/members", undefined, bearer(governance.body.token as string))).status).toBe(401);
    // The login session it was opened from goes on; granting again does not bring the old session back.
    expect((await me(owner.token)).status).toBe(200);
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, true);
    expect((await me(governance.body.token as string)).status).toBe(401);
  });
});
