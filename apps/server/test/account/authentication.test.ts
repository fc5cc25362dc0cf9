import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { searchEvidence } from "@als/db";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

let hosted: TestService;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  hosted = await startTestService({ authMode: "required" });
  a = await createTenant(hosted.deps, "a");
  b = await createTenant(hosted.deps, "b");
});
afterAll(() => hosted.close());

const addProfile = (token: string, content: string) =>
  hosted.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "ana", content }] }, bearer(token));
const search = (token: string, query: string) =>
  hosted.call("POST", "/api/search", { query, user_id: "ana", search_mode: "vector", threshold: 0 }, bearer(token));

describe("hosted mode (AUTH_MODE=required)", () => {
  test("no credential answers 401 with WWW-Authenticate, on REST and tRPC", async () => {
    const rest = await hosted.call("GET", "/api/whoami");
    expect(rest.status).toBe(401);
    expect(rest.body).toEqual({ error: "unauthorized", detail: expect.stringContaining("Authorization: Bearer") });
    const raw = await hosted.app.handle(new Request("http://localhost/api/whoami"));
    expect(raw.headers.get("www-authenticate")).toStartWith("Bearer");
    const trpc = await hosted.call("GET", "/trpc/service.whoami");
    expect(trpc.status).toBe(401);
  });

  test("an unknown, malformed or revoked credential is 401 and changes nothing", async () => {
    for (const authorization of ["Bearer als_deadbeef_nothing", "Token abc", "Bearer "]) {
      const response = await hosted.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "ana", content: "x" }] }, { authorization });
      expect(response.status).toBe(401);
    }
    expect((await hosted.db.query("SELECT 1 FROM profiles WHERE content = 'x'")).length).toBe(0);
  });

  test("a key answers as its organisation; whoami names it", async () => {
    expect((await hosted.call("GET", "/api/whoami", undefined, bearer(a.fullKey))).body.org_id).toBe(a.orgId);
    expect((await hosted.call("GET", "/api/whoami", undefined, bearer(b.limitedKey))).body.org_id).toBe(b.orgId);
    expect((await hosted.call("GET", "/trpc/service.whoami", undefined, bearer(a.loginSession))).body.result.data.org_id).toBe(a.orgId);
  });

  test("what one organisation writes, another never reads", async () => {
    expect((await addProfile(a.fullKey, "Prefers window seats on long flights")).status).toBe(200);
    const own = await search(a.limitedKey, "window seat");
    expect(own.body.profiles.map((p: { content: string }) => p.content)).toEqual(["Prefers window seats on long flights"]);
    const other = await search(b.fullKey, "window seat");
    expect(other.status).toBe(200);
    expect(other.body.profiles).toEqual([]);
    expect((await hosted.call("GET", "/api/get_all_profiles?user_id=ana", undefined, bearer(b.loginSession))).body.user_profiles ?? []).toEqual([]);
  });

  test("invalidate_cache naming another organisation is 403; its own is served", async () => {
    expect((await hosted.call("POST", "/api/admin/cache/invalidate", { org_id: b.orgId }, bearer(a.fullKey))).status).toBe(403);
    expect((await hosted.call("POST", "/api/admin/cache/invalidate", { org_id: a.orgId }, bearer(a.fullKey))).status).toBe(200);
  });

  test("X-Service-Project cannot point a key at another project", async () => {
    const response = await hosted.call("GET", "/api/whoami", undefined, { ...bearer(a.fullKey), "x-service-project": "elsewhere" });
    expect(response.status).toBe(404);
  });
});

describe("evidence of authenticated searches (Authentication 10)", () => {
  test("a search that serves results records them before it answers; an empty one records nothing", async () => {
    const c = await createTenant(hosted.deps, "c");
    const scope = { orgId: c.orgId, projectId: "default" };
    expect((await search(c.fullKey, "anything")).body.profiles).toEqual([]);
    expect(await searchEvidence.listSearchEvidence(hosted.db, scope)).toEqual([]);

    await addProfile(c.fullKey, "Writes code in Rust");
    const found = await search(c.fullKey, "programming language");
    const [profile] = found.body.profiles;
    const evidence = await searchEvidence.listSearchEvidence(hosted.db, scope);
    expect(evidence).toEqual([
      expect.objectContaining({ route: "search.unified", credential_kind: "api_key", user_id: "ana", served_ids: [`profile:${profile.profile_id}`] }),
    ]);
  });

  test("search_user_playbooks records what it served, by the member of a session", async () => {
    const d = await createTenant(hosted.deps, "d");
    const scope = { orgId: d.orgId, projectId: "default" };
    const added = await hosted.call(
      "POST",
      "/api/add_user_playbook",
      { user_playbooks: [{ user_id: "ana", agent_version: "v1", request_id: "r1", content: "Answer in French", playbook_name: "lang" }] },
      bearer(d.fullKey),
    );
    expect(added.status).toBe(200);
    const found = await hosted.call("POST", "/api/search_user_playbooks", { query: "French", search_mode: "vector", threshold: 0 }, bearer(d.loginSession));
    expect(found.body.user_playbooks.length).toBe(1);
    expect(await searchEvidence.listSearchEvidence(hosted.db, scope)).toEqual([
      expect.objectContaining({ route: "userPlaybooks.search", credential_kind: "login_session", principal_id: d.ownerId }),
    ]);
  });

  test("when the evidence cannot be recorded the search fails and serves nothing", async () => {
    const e = await createTenant(hosted.deps, "e");
    await addProfile(e.fullKey, "Collects vinyl records");
    await hosted.db.exec("ALTER TABLE search_evidence ADD CONSTRAINT refuse_all CHECK (false) NOT VALID");
    try {
      const response = await search(e.fullKey, "music");
      expect(response.status).toBeGreaterThanOrEqual(500);
      expect(response.body.profiles).toBeUndefined();
    } finally {
      await hosted.db.exec("ALTER TABLE search_evidence DROP CONSTRAINT refuse_all");
    }
  });
});

describe("rate limits per credential (429 with Retry-After)", () => {
  let limited: TestService;
  let t: Tenant;
  let u: Tenant;
  beforeAll(async () => {
    const tight = { perSecond: 0.5, burst: 2 };
    limited = await startTestService({ authMode: "required", rateLimits: { search: tight, publish: tight, write: tight, read: tight, sign_in: tight } });
    t = await createTenant(limited.deps, "t");
    u = await createTenant(limited.deps, "u");
  });
  afterAll(() => limited.close());

  test("a key past its burst is refused with Retry-After and a message naming the key; another key is not affected", async () => {
    const whoami = (token: string) => limited.app.handle(new Request("http://localhost/api/whoami", { headers: bearer(token) }));
    expect((await whoami(t.fullKey)).status).toBe(200);
    expect((await whoami(t.fullKey)).status).toBe(200);
    const refused = await whoami(t.fullKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = (await refused.json()) as { error: string; detail: string };
    expect(body.error).toBe("rate_limited");
    // It names what was limited, and that the count is this process's.
    expect(body.detail).toContain("for this API key in this API process");
    expect((await whoami(u.fullKey)).status).toBe(200);
  });

  test("public endpoints are limited per peer address: password guessing is throttled over the network, whatever X-Forwarded-For an untrusted peer sends", async () => {
    limited.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${limited.app.server!.port}/api/account/login`;
      let spoofed = 0;
      // No proxy is trusted here: a forwarded address the peer makes up is not read.
      const guess = () =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${++spoofed}` },
          body: JSON.stringify({ email: "a@b.example", password: "guess-guess-1" }),
        });
      expect((await guess()).status).toBe(401);
      expect((await guess()).status).toBe(401);
      const refused = await guess();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).not.toBeNull();
    } finally {
      await limited.app.stop();
    }
  });
});

describe("what a tenant of a hosted server is shown", () => {
  test("no server path reaches a hosted tenant: publish and whoami carry the storage type, never its directory or host", async () => {
    const opened = hosted.deps.storage;
    hosted.deps.storage = { kind: "pglite", dataDir: "/srv/learning/.data/pglite" };
    try {
      const whoami = await hosted.call("GET", "/api/whoami", undefined, bearer(a.fullKey));
      expect(whoami).toEqual({ status: 200, body: { success: true, org_id: a.orgId, storage_type: hosted.db.kind, storage_label: null } });
      const published = await hosted.call(
        "POST",
        "/api/publish_interaction",
        { user_id: "ana", session_id: "s-1", interaction_data_list: [{ role: "User", content: "hello" }] },
        bearer(a.fullKey),
      );
      expect(published.status).toBe(200);
      expect(published.body.storage_routing).toEqual({ storage_type: hosted.db.kind, storage_label: hosted.db.kind });
      expect(published.body.storage_label).toBe(hosted.db.kind);
      expect(JSON.stringify([whoami.body, published.body])).not.toContain("/srv/learning");
    } finally {
      hosted.deps.storage = opened;
    }
  });
});

describe("my_config (Authentication 9)", () => {
  test("an organisation of a hosted server never reads the deployment's database settings; whoami stays masked", async () => {
    const config = await hosted.call("GET", "/api/my_config", undefined, bearer(a.fullKey));
    expect(config).toEqual({ status: 200, body: { success: true, storage_type: hosted.db.kind, storage_config: null } });
    const whoami = await hosted.call("GET", "/api/whoami", undefined, bearer(a.fullKey));
    expect(JSON.stringify(whoami.body)).not.toContain("password");
  });
});
