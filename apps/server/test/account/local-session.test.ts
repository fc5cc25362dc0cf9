import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { members } from "@als/db";
import { LOCAL_OPERATOR } from "@als/identity";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer } from "@als/test-support/tenants.ts";
import { fromThisMachine } from "../../src/http/client-address.ts";

// The console of a local server opens without signing in: POST /api/account/local-session gives a
// browser on the server's own machine a session of the local organisation's operator. Everyone
// else (hosted mode, another machine, anything through a proxy, another web origin's page) is 403.

let local: TestService;
let hosted: TestService;
let origin: string;
let hostedOrigin: string;

beforeAll(async () => {
  [local, hosted] = await Promise.all([startTestService(), startTestService({ authMode: "required" })]);
  local.app.listen({ hostname: "127.0.0.1", port: 0 });
  hosted.app.listen({ hostname: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${local.app.server!.port}`;
  hostedOrigin = `http://127.0.0.1:${hosted.app.server!.port}`;
});
afterAll(async () => {
  await Promise.all([local?.app.stop(), hosted?.app.stop()]);
  await Promise.all([local?.close(), hosted?.close()]);
});

async function localSession(at: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${at}/api/account/local-session`, { method: "POST", headers });
  return { status: response.status, body: (await response.json()) as any };
}

async function rest(method: string, path: string, token: string | null, body?: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(token && bearer(token)), ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("POST /api/account/local-session", () => {
  test("from this machine, a local server gives the local organisation's owner a session that sees what agents published without a credential", async () => {
    const published = await rest("POST", "/api/add_user_profile", null, { user_profiles: [{ user_id: "ana", content: "Owns a golden retriever" }] });
    expect(published.status).toBe(200);

    const session = await localSession(origin);
    expect(session).toEqual({
      status: 200,
      body: { token: expect.any(String), expires_at: expect.any(Number), member_id: LOCAL_OPERATOR.member_id, org_id: "local", role: "owner" },
    });
    const me = await rest("GET", "/api/account/me", session.body.token);
    expect(me.body).toMatchObject({ email: LOCAL_OPERATOR.email, org_id: "local", role: "owner", projects: [{ project_id: "default" }] });
    const profiles = await rest("POST", "/api/get_profiles", session.body.token, { user_id: "ana" });
    expect(profiles.body.user_profiles.map((each: { content: string }) => each.content)).toEqual(["Owns a golden retriever"]);
  });

  test("a key the local operator creates is a key of the local organisation, working as in hosted mode", async () => {
    const { token } = (await localSession(origin)).body;
    const created = await rest("POST", "/api/account/api-keys", token, { name: "support agent" });
    expect(created.status).toBe(201);
    expect((await rest("GET", "/api/whoami", created.body.key)).body.org_id).toBe("local");
    await rest("DELETE", `/api/account/api-keys/${created.body.prefix}`, token);
    expect((await rest("GET", "/api/whoami", created.body.key)).status).toBe(401);
  });

  test("concurrent first calls make one operator: every session is the same member's", async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => localSession(origin)));
    expect(new Set(sessions.map((each) => each.status))).toEqual(new Set([200]));
    expect(new Set(sessions.map((each) => each.body.member_id))).toEqual(new Set([LOCAL_OPERATOR.member_id]));
    expect((await members.listMembers(local.db, "local")).map((each) => each.member_id)).toEqual([LOCAL_OPERATOR.member_id]);
  });

  test("a hosted server (AUTH_MODE=required) refuses it, makes no member, and says to sign in", async () => {
    const refused = await localSession(hostedOrigin);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain("sign in");
    expect(await members.listMembers(hosted.db, "local")).toEqual([]);
  });

  test("through a proxy (any forwarding header), from another web origin's page, or in process it is refused", async () => {
    const proxied: Record<string, string>[] = [{ "x-forwarded-for": "127.0.0.1" }, { forwarded: "for=127.0.0.1" }, { "x-real-ip": "127.0.0.1" }];
    for (const headers of proxied) {
      const refused = await localSession(origin, headers);
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain("server's own machine");
    }
    // The browser guard refuses another origin before any route; one it allows is still not the console.
    expect((await localSession(origin, { origin: "http://evil.example" })).status).toBe(403);
    expect((await localSession(origin, { origin })).status).toBe(200);
    expect((await local.call("POST", "/api/account/local-session")).status).toBe(403);
  });

  test("only loopback peers count as this machine, IPv4-mapped or not", () => {
    const plain = new Request("http://localhost/api/account/local-session", { method: "POST" });
    for (const peer of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(fromThisMachine(plain, peer)).toBe(true);
    for (const peer of ["192.0.2.2", "10.0.0.1", "::ffff:192.0.2.2", "fd00::2", null]) expect(fromThisMachine(plain, peer)).toBe(false);
    const allowedOrigin = new Request("http://localhost:8081/api/account/local-session", { method: "POST", headers: { origin: "https://app.example" } });
    expect(fromThisMachine(allowedOrigin, "127.0.0.1")).toBe(false);
  });
});
