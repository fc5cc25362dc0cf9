import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "@als/client";
import { organizations } from "@als/db";
import { type AccountPortal, PORTAL_PASSWORD, startAccountPortal } from "@als/test-support/account-portal.ts";
import type { TestService } from "@als/test-support/service.ts";
import { bearer } from "@als/test-support/tenants.ts";

// API keys made, listed and revoked from the account, and governance sessions.

let portal: AccountPortal;
let svc: TestService;
const PASSWORD = PORTAL_PASSWORD;

beforeAll(async () => {
  portal = await startAccountPortal("keyholder");
  ({ svc } = portal);
});
afterAll(() => portal.close());

const newAddress = () => portal.newAddress();
const mailedToken = (email: string, path: string) => portal.mailedToken(email, path);
const signUp = () => portal.signUp("Keys Ltd");

/** A plain member of the organisation of `ownerToken`, through an invitation. */
async function joinAsMember(ownerToken: string): Promise<string> {
  const email = newAddress();
  await svc.call("POST", "/api/account/invitations", { email, role: "member" }, bearer(ownerToken));
  const accepted = await svc.call("POST", "/api/account/invitations/accept", {
    token: await mailedToken(email, "/api/account/invitations/accept"),
    password: PASSWORD,
  });
  return accepted.body.token;
}

const createKey = (token: string, body: object) => svc.call("POST", "/api/account/api-keys", body, bearer(token));
const listKeys = async (token: string) => (await svc.call("GET", "/api/account/api-keys", undefined, bearer(token))).body.api_keys;
const whoami = (key: string) => svc.call("GET", "/api/whoami", undefined, bearer(key));

describe("API keys", () => {
  test("a key is created for the default project with full access; its value answers as the organisation", async () => {
    const owner = await signUp();
    const created = await createKey(owner.token, { name: "production agent" });
    expect(created).toEqual({
      status: 201,
      body: {
        key: expect.stringMatching(/^als_[0-9a-f]{8}_/),
        key_id: expect.stringMatching(/^key_/),
        prefix: expect.stringMatching(/^als_[0-9a-f]{8}$/),
        name: "production agent",
        project_id: "default",
        access: "full",
        created_at: svc.clock.now,
      },
    });
    expect(created.body.key.startsWith(`${created.body.prefix}_`)).toBe(true);
    expect((await whoami(created.body.key)).body.org_id).toBe(owner.orgId);
  });

  test("the list shows prefix, name, project, access and last use, and never the value again", async () => {
    const owner = await signUp();
    await svc.call("POST", "/api/account/projects", { project_id: "staging" }, bearer(owner.token));
    const full = (await createKey(owner.token, { name: "full" })).body;
    const limited = (await createKey(owner.token, { name: "limited", project_id: "staging", access: "limited" })).body;
    expect(limited).toMatchObject({ project_id: "staging", access: "limited" });
    await whoami(full.key);
    const listed = await listKeys(owner.token);
    expect(listed).toHaveLength(2);
    expect(listed.find((key: { prefix: string }) => key.prefix === full.prefix)).toEqual({
      key_id: full.key_id,
      prefix: full.prefix,
      name: "full",
      project_id: "default",
      access: "full",
      created_at: full.created_at,
      last_used_at: svc.clock.now,
    });
    expect(listed.find((key: { prefix: string }) => key.prefix === limited.prefix).last_used_at).toBeNull();
    const text = JSON.stringify(listed);
    // The secret is what follows "<prefix>_"; it may itself hold "_" (base64url), so it is not cut at the last one.
    for (const { key, prefix } of [full, limited]) expect(text).not.toContain(key.slice(prefix.length + 1));
    expect(text).not.toContain("hash");
  });

  test("a project the organisation does not have is 404 and no key is made", async () => {
    const owner = await signUp();
    const other = await signUp();
    await svc.call("POST", "/api/account/projects", { project_id: "theirs" }, bearer(other.token));
    const response = await createKey(owner.token, { name: "k", project_id: "theirs" });
    expect(response.status).toBe(404);
    expect(await listKeys(owner.token)).toEqual([]);
  });

  test("bad input answers 422 naming the field and makes no key", async () => {
    const owner = await signUp();
    for (const [body, field] of [
      [{}, "name"],
      [{ name: "  " }, "name"],
      [{ name: "k", access: "admin" }, "access"],
      [{ name: "k", project_id: "Not Valid" }, "project_id"],
      [{ name: "k", value: "als_mine" }, "value"],
    ] as const) {
      const response = await createKey(owner.token, body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
    expect(await listKeys(owner.token)).toEqual([]);
  });

  test("deleting a key answers its listing, and the key stops working at once", async () => {
    const owner = await signUp();
    const { key, prefix, key_id } = (await createKey(owner.token, { name: "to revoke" })).body;
    expect((await whoami(key)).status).toBe(200);
    const deleted = await svc.call("DELETE", `/api/account/api-keys/${prefix}`, undefined, bearer(owner.token));
    expect(deleted).toEqual({
      status: 200,
      body: { key_id, prefix, name: "to revoke", project_id: "default", access: "full", created_at: expect.any(Number), last_used_at: expect.any(Number) },
    });
    expect((await whoami(key)).status).toBe(401);
    expect(await listKeys(owner.token)).toEqual([]);
    expect((await svc.call("DELETE", `/api/account/api-keys/${prefix}`, undefined, bearer(owner.token))).status).toBe(404);
  });

  test("an unknown prefix or another organisation's is 404, and that key keeps working", async () => {
    const owner = await signUp();
    const other = await signUp();
    const theirs = (await createKey(other.token, { name: "theirs" })).body;
    expect((await svc.call("DELETE", `/api/account/api-keys/${theirs.prefix}`, undefined, bearer(owner.token))).status).toBe(404);
    expect((await svc.call("DELETE", "/api/account/api-keys/als_00000000", undefined, bearer(owner.token))).status).toBe(404);
    expect((await whoami(theirs.key)).status).toBe(200);
    expect(await listKeys(owner.token)).toEqual([]);
  });

  test("a plain member lists keys but can neither create nor delete one (403); a key cannot manage keys", async () => {
    const owner = await signUp();
    const { key, prefix } = (await createKey(owner.token, { name: "shared" })).body;
    const member = await joinAsMember(owner.token);
    expect(await listKeys(member)).toHaveLength(1);
    expect((await createKey(member, { name: "mine" })).status).toBe(403);
    expect((await svc.call("DELETE", `/api/account/api-keys/${prefix}`, undefined, bearer(member))).status).toBe(403);
    expect((await createKey(key, { name: "by a key" })).status).toBe(403);
    expect((await svc.call("GET", "/api/account/api-keys", undefined, bearer(key))).status).toBe(403);
    expect((await whoami(key)).status).toBe(200);
  });

  test("the typed client calls the account endpoints with a session token, path parameters included", async () => {
    const owner = await signUp();
    const client = createClient({ baseUrl: "http://localhost", apiKey: owner.token, fetch: (url, init) => svc.app.handle(new Request(url, init)), retries: 0 });
    const created = await client.account.createApiKey({ name: "from the client", access: "limited" });
    expect((await client.account.listApiKeys()).api_keys.map((key) => key.prefix)).toEqual([created.prefix]);
    expect((await client.account.deleteApiKey({ prefix: created.prefix })).key_id).toBe(created.key_id);
    expect((await client.account.listApiKeys()).api_keys).toEqual([]);
  });
});

describe("governance sessions", () => {
  const openGovernance = (token: string, password = PASSWORD) => svc.call("POST", "/api/account/governance-sessions", { password }, bearer(token));

  test("an owner of an entitled organisation who types the password again gets a fifteen-minute governance session", async () => {
    const owner = await signUp();
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, true);
    expect((await svc.call("GET", "/api/account/me", undefined, bearer(owner.token))).body.governance_entitled).toBe(true);
    const opened = await openGovernance(owner.token);
    expect(opened).toEqual({ status: 201, body: { token: expect.stringMatching(/^alsg_/), expires_at: svc.clock.now + 15 * 60 } });
    // A governance session is a member's session too.
    expect((await svc.call("GET", "/api/account/me", undefined, bearer(opened.body.token))).status).toBe(200);
    svc.clock.now += 15 * 60;
    try {
      expect((await svc.call("GET", "/api/account/me", undefined, bearer(opened.body.token))).status).toBe(401);
    } finally {
      svc.clock.now -= 15 * 60;
    }
  });

  test("without the entitlement, or as a plain member, it is 403; a wrong password is 401", async () => {
    const owner = await signUp();
    const refused = await openGovernance(owner.token);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("entitlement");
    await organizations.setGovernanceEntitlement(svc.db, owner.orgId, true);
    const member = await joinAsMember(owner.token);
    expect((await openGovernance(member)).status).toBe(403);
    const wrong = await openGovernance(owner.token, "not the password");
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toContain("password");
    const sessions = await svc.db.query("SELECT 1 FROM login_sessions WHERE kind = 'governance' AND org_id = $1", [owner.orgId]);
    expect(sessions.length).toBe(0);
  });

  test("without a password it answers 422 naming password", async () => {
    const owner = await signUp();
    const response = await svc.call("POST", "/api/account/governance-sessions", {}, bearer(owner.token));
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("password");
  });
});
