import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

// GET /api/learning/backlog: a member's view of whether learning keeps up in each project of the
// organisation and of its durable work, read from the database (no LLM is configured here, so
// published requests wait and each user's learning fails for good until one is).

let svc: TestService;
let owner: Tenant;
let stranger: Tenant;
beforeAll(async () => {
  svc = await startTestService({ authMode: "required" });
  owner = await createTenant(svc.deps, "backlog-owner");
  stranger = await createTenant(svc.deps, "backlog-stranger");
});
afterAll(() => svc.close());

const backlog = (token: string, query = "") => svc.call("GET", `/api/learning/backlog${query}`, undefined, bearer(token));

describe("the learning backlog", () => {
  test("lists the organisation's project with its oldest waiting request, the users waiting and the learning that failed", async () => {
    expect((await backlog(owner.loginSession)).body).toEqual({ success: true, projects: [], durable_work: [], temporal_ui: null });
    const publishedAt = svc.clock.now;
    for (const user of ["ana", "ben"]) {
      const published = await svc.call(
        "POST",
        "/api/publish_interaction",
        { user_id: user, session_id: `${user}-s`, force_extraction: true, interaction_data_list: [{ role: "User", content: `${user} likes tea` }] },
        bearer(owner.fullKey),
      );
      expect(published.status).toBe(200);
    }
    await svc.learningIdle();
    svc.clock.now = publishedAt + 90;
    const read = await backlog(owner.loginSession);
    expect(read.status).toBe(200);
    expect(read.body.projects).toEqual([{ project_id: "default", oldest_pending_at: publishedAt, lag_seconds: 90, waiting_users: 2 }]);
    // Each user's two extractors (profile, playbook) cannot learn without a provider: failed for good.
    expect(read.body.durable_work).toEqual([{ project_id: "default", kind: "learning", status: "failed", count: 4 }]);
  });

  test("another organisation's member sees none of it", async () => {
    expect((await backlog(stranger.loginSession)).body).toEqual({ success: true, projects: [], durable_work: [], temporal_ui: null });
  });

  test("an API key is refused: the backlog names the organisation's projects, a member's view", async () => {
    const read = await backlog(owner.fullKey);
    expect(read.status).toBe(403);
    expect(read.body).toEqual({ error: "forbidden", detail: "learning.backlog accepts a login session, not a full-access API key" });
  });

  test("a query parameter answers 422 naming it", async () => {
    const read = await backlog(owner.loginSession, "?project_id=default");
    expect(read.status).toBe(422);
    expect(JSON.stringify(read.body)).toContain("project_id");
  });

  test("with the Temporal UI configured (full mode), the answer links its workflows", async () => {
    svc.deps.temporalUi = { workflowsUrl: "http://127.0.0.1:8233/namespaces/default/workflows" };
    try {
      expect((await backlog(owner.loginSession)).body.temporal_ui).toEqual({ workflows_url: "http://127.0.0.1:8233/namespaces/default/workflows" });
    } finally {
      delete svc.deps.temporalUi;
    }
  });
});
