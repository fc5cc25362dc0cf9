import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError, defineResource, type Endpoint, NoInput } from "@als/contract";
import { type Database, organizations } from "@als/db";
import { freshDatabase } from "@als/test-support/database.ts";
import { createTenant, type Tenant } from "@als/test-support/tenants.ts";
import { z } from "zod";
import { type AuthMode, authorizeRequest, type CredentialHeaders, createApiKey, deleteApiKey, type IdentityDeps } from "../src/index.ts";

/**
 * The Authentication section's rules, checked on declarations shaped like the routes that carry
 * them (governance, data sources, onboarding, project routes), so each rule holds before those
 * routes exist: they will be declared the same way.
 */
const rules = defineResource("rules", {
  agentRoute: { method: "POST", path: "/api/agent", summary: "", input: NoInput, output: NoInput },
  governance: { method: "POST", path: "/api/governance/x", summary: "", input: NoInput, output: NoInput, credentials: ["governance_session"] },
  portalErasure: {
    method: "POST",
    path: "/api/projects/:project_id/erase",
    summary: "",
    input: z.object({ project_id: z.string() }),
    output: NoInput,
    credentials: ["governance_session"],
    projectPathParam: "project_id",
  },
  dataSources: { method: "GET", path: "/api/data-sources", summary: "", input: NoInput, output: NoInput, credentials: ["api_key"] },
  projectDataSources: {
    method: "GET",
    path: "/api/projects/:project_id/data-sources",
    summary: "",
    input: z.object({ project_id: z.string() }),
    output: NoInput,
    credentials: ["api_key", "login_session"],
    projectPathParam: "project_id",
  },
  onboarding: { method: "GET", path: "/api/onboarding", summary: "", input: NoInput, output: NoInput, credentials: ["login_session"] },
  register: { method: "POST", path: "/api/register", summary: "", input: NoInput, output: NoInput, public: true },
});

let db: Database;
let drop: () => Promise<void>;
let deps: IdentityDeps;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  ({ db, drop } = await freshDatabase());
  deps = { db, now: () => Math.floor(Date.now() / 1000) };
  a = await createTenant(deps, "a");
  b = await createTenant(deps, "b");
  await organizations.insertProject(db, a.orgId, { projectId: "second", name: "Second" }, deps.now());
});
afterAll(() => drop());

const headers = (token: string | null, project: string | null = null): CredentialHeaders => ({
  authorization: token === null ? null : `Bearer ${token}`,
  project,
});

async function refusal(endpoint: Endpoint, h: CredentialHeaders, params: Record<string, string> = {}, mode: AuthMode = "required") {
  try {
    await authorizeRequest(deps, mode, endpoint, h, params);
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, message: error.message };
    throw error;
  }
  return null;
}

describe("credentials", () => {
  test("hosted mode: no credential is 401; a malformed header or an unknown token is 401", async () => {
    expect((await refusal(rules.agentRoute, headers(null)))?.status).toBe(401);
    expect((await refusal(rules.agentRoute, { authorization: "Basic abc", project: null }))?.status).toBe(401);
    expect((await refusal(rules.agentRoute, headers("als_00000000_nothing")))?.status).toBe(401);
    expect((await refusal(rules.agentRoute, headers("something-else")))?.status).toBe(401);
  });

  test("local mode: no credential is the local organisation's default project; a credential sent is still verified", async () => {
    const local = await authorizeRequest(deps, "local", rules.agentRoute, headers(null), {});
    expect(local).toEqual({ principal: { kind: "local" }, scope: { orgId: "local", projectId: "default" } });
    expect((await refusal(rules.agentRoute, headers("als_00000000_nothing"), {}, "local"))?.status).toBe(401);
    // What needs a member needs a log-in on a local server too.
    expect((await refusal(rules.onboarding, headers(null), {}, "local"))?.status).toBe(401);
  });

  test("an API key's scope is its organisation and bound project, whatever the request says", async () => {
    const { scope } = await authorizeRequest(deps, "required", rules.agentRoute, headers(a.fullKey), {});
    expect(scope).toEqual({ orgId: a.orgId, projectId: "default" });
    const matching = await authorizeRequest(deps, "required", rules.agentRoute, headers(a.fullKey, "default"), {});
    expect(matching.scope).toEqual(scope);
  });

  test("a project header cannot redirect an API key: another project of its organisation is 403, one it does not have 404", async () => {
    expect(await refusal(rules.agentRoute, headers(a.fullKey, "second"))).toEqual({
      status: 403,
      message: "this API key is bound to project default, not second",
    });
    expect((await refusal(rules.agentRoute, headers(b.fullKey, "second")))?.status).toBe(404);
  });

  test("a session reaches the projects of its organisation by X-Service-Project; another organisation's project is 404", async () => {
    const { scope } = await authorizeRequest(deps, "required", rules.agentRoute, headers(a.loginSession, "second"), {});
    expect(scope).toEqual({ orgId: a.orgId, projectId: "second" });
    expect((await refusal(rules.agentRoute, headers(b.loginSession, "second")))?.status).toBe(404);
  });

  test("a deleted key stops working at once", async () => {
    const { value, key } = await createApiKey(deps, a.orgId, { projectId: "default", name: "doomed", access: "full", createdBy: null });
    expect((await authorizeRequest(deps, "required", rules.agentRoute, headers(value), {})).principal.kind).toBe("api_key");
    await deleteApiKey(deps, a.orgId, key.prefix);
    expect((await refusal(rules.agentRoute, headers(value)))?.status).toBe(401);
  });

  test("public endpoints read no credential", async () => {
    expect((await authorizeRequest(deps, "required", rules.register, headers(null), {})).principal).toEqual({ kind: "anonymous" });
  });
});

describe("governance routes (Authentication 5)", () => {
  test("ordinary API keys and login sessions are refused with 403; a governance session is served", async () => {
    for (const token of [a.fullKey, a.limitedKey, a.loginSession]) expect((await refusal(rules.governance, headers(token)))?.status).toBe(403);
    expect((await authorizeRequest(deps, "required", rules.governance, headers(a.governanceSession), {})).scope.orgId).toBe(a.orgId);
  });

  test("withdrawing the entitlement ends the organisation's governance sessions: 401, also where a login session would serve", async () => {
    const c = await createTenant(deps, "c");
    await organizations.setGovernanceEntitlement(db, c.orgId, false);
    expect(await refusal(rules.governance, headers(c.governanceSession))).toEqual({ status: 401, message: "the credential is unknown, revoked or expired" });
    expect((await refusal(rules.onboarding, headers(c.governanceSession)))?.status).toBe(401);
  });

  test("a governance session of an organisation without the entitlement is refused on every governance request (403)", async () => {
    const d = await createTenant(deps, "d");
    // The flag alone, as a database restored from before the grant would have it: the check per request still holds.
    await db.query("UPDATE organizations SET governance_entitled = false WHERE org_id = $1", [d.orgId]);
    expect(await refusal(rules.governance, headers(d.governanceSession))).toEqual({
      status: 403,
      message: "the organisation does not hold the governance entitlement",
    });
  });

  test("portal erasure routes need X-Service-Project equal to the URL's project", async () => {
    const params = { project_id: "default" };
    expect((await refusal(rules.portalErasure, headers(a.governanceSession), params))?.status).toBe(403);
    expect((await refusal(rules.portalErasure, headers(a.governanceSession, "second"), params))?.status).toBe(403);
    expect((await authorizeRequest(deps, "required", rules.portalErasure, headers(a.governanceSession, "default"), params)).scope).toEqual({
      orgId: a.orgId,
      projectId: "default",
    });
    // Another organisation's project in the URL (and header) is not revealed: 404.
    const other = { project_id: "second" };
    expect((await refusal(rules.portalErasure, headers(b.governanceSession, "second"), other))?.status).toBe(404);
  });
});

describe("data-source routes (Authentication 6)", () => {
  test("/api/data-sources needs a full-access key: limited keys and sessions are 403", async () => {
    expect((await authorizeRequest(deps, "required", rules.dataSources, headers(a.fullKey), {})).scope).toEqual({ orgId: a.orgId, projectId: "default" });
    for (const token of [a.limitedKey, a.loginSession]) expect((await refusal(rules.dataSources, headers(token)))?.status).toBe(403);
  });

  test("/api/projects/{id}/data-sources: a full key bound to the project or a session, with a matching header", async () => {
    const params = { project_id: "second" };
    expect((await authorizeRequest(deps, "required", rules.projectDataSources, headers(a.loginSession, "second"), params)).scope.projectId).toBe("second");
    // The key is bound to `default`: naming `second` in URL and header cannot redirect it.
    expect((await refusal(rules.projectDataSources, headers(a.fullKey, "second"), params))?.status).toBe(403);
    expect((await refusal(rules.projectDataSources, headers(a.loginSession, "default"), params))?.status).toBe(403);
    expect((await refusal(rules.projectDataSources, headers(a.limitedKey, "default"), { project_id: "default" }))?.status).toBe(403);
  });
});

describe("onboarding routes (Authentication 7)", () => {
  test("need a login session: agent keys are refused", async () => {
    for (const token of [a.fullKey, a.limitedKey]) expect((await refusal(rules.onboarding, headers(token)))?.status).toBe(403);
    expect((await authorizeRequest(deps, "required", rules.onboarding, headers(a.loginSession), {})).principal.kind).toBe("session");
  });
});
