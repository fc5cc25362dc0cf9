import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UserExportBundle } from "@als/contract";
import { PHYSICAL_REMOVAL_INTERVAL_SECONDS } from "@als/core";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { findTextEverywhere } from "@als/test-support/subject-scan.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

// The erasure of a user: a subject with rows of every kind (learned by the real learning path, plus
// links, reviews, outcomes, evidence and a generation run), in two projects; erased from one. The
// scan that proves it reads the catalog, so a table added later is scanned too.

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let tenant: Tenant;
let other: Tenant;

/** Unique, so any cell holding it (in any column, JSON included) is the subject's. */
const SUBJECT = `subject-${crypto.randomUUID().slice(0, 8)}`;
const NEIGHBOUR = `neighbour-${crypto.randomUUID().slice(0, 8)}`;
const SECOND = "second";

beforeAll(async () => {
  llm = await startScriptedLlm();
  svc = await startTestService({ llm: llm.llm });
  tenant = await createTenant(svc.deps, "erasure");
  other = await createTenant(svc.deps, "bystander");
  const created = await svc.call("POST", "/api/account/projects", { project_id: SECOND, name: "Second" }, bearer(tenant.loginSession));
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});

const scopeOf = (projectId = "default") => ({ orgId: tenant.orgId, projectId });
const asGovernance = (projectId = "default") => ({ ...bearer(tenant.governanceSession), "x-service-project": projectId });

async function call(method: string, path: string, body: unknown, projectId = "default") {
  return svc.call(method, path, body, asGovernance(projectId));
}

async function ok(method: string, path: string, body: unknown, projectId = "default") {
  const response = await call(method, path, body, projectId);
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const CONVERSATION = (userId: string) => [
  { role: "User", content: `Hi, I am ${userId}. I have a golden retriever called Biscuit.` },
  { role: "Agent", content: "Lovely. How can I help?" },
  { role: "User", content: "I am vegan. Can you suggest a dinner recipe?" },
  { role: "Agent", content: "Try roast chicken.", expert_content: "Try a chickpea curry, fully vegan." },
];

/** Gives `userId` rows of every kind in a project, through the API wherever one writes them. */
async function seedUser(userId: string, projectId: string) {
  const sessionId = `session-of-${userId}`;
  // Under an Idempotency-Key: the key is the subject's too.
  const publishing = await svc.call(
    "POST",
    "/api/publish_interaction?wait_for_response=true",
    { user_id: userId, session_id: sessionId, source: "chat", force_extraction: true, interaction_data_list: CONVERSATION(userId) },
    { ...asGovernance(projectId), "idempotency-key": `seed-${userId}` },
  );
  expect(publishing.status).toBe(200);
  const published = publishing.body;
  await ok("POST", "/api/add_user_profile", { user_profiles: [{ user_id: userId, content: `${userId} prefers email` }] }, projectId);
  const added = await ok(
    "POST",
    "/api/add_user_playbook",
    { user_playbooks: [{ user_id: userId, request_id: published.request_id, content: `Greet ${userId} by name`, trigger: "a greeting" }] },
    projectId,
  );
  await ok("POST", "/api/session_outcome", { session_id: sessionId, outcome: "success", occurred_at: 100, label: "resolved" }, projectId);
  // A search in the user's session serves their learnings (session state) and is recorded as evidence.
  await ok("POST", "/api/search", { query: "vegan dinner recipe", user_id: userId, session_id: sessionId }, projectId);
  await ok("POST", "/api/manual_profile_generation", { user_id: userId }, projectId);
  await svc.learningIdle();
  return { published, userPlaybookId: (added.user_playbook_ids ?? added.playbook_ids)[0] as number };
}

/** An agent playbook aggregated from the user's playbook, and a review that decided about it (the lineage rows). */
async function linkLineage(userPlaybookId: number, projectId: string) {
  const agent = await ok("POST", "/api/add_agent_playbook", { agent_playbooks: [{ trigger: "a greeting", content: "Greet users by name" }] }, projectId);
  const agentPlaybookId = (agent.agent_playbook_ids ?? agent.playbook_ids)[0] as number;
  await svc.db.query("INSERT INTO agent_playbook_sources (agent_playbook_id, user_playbook_id) VALUES ($1, $2)", [agentPlaybookId, userPlaybookId]);
  const runId = crypto.randomUUID();
  await svc.db.query("INSERT INTO playbook_review_runs (run_id, org_id, project_id, status, created_at) VALUES ($1, $2, $3, 'completed', 1)", [
    runId,
    tenant.orgId,
    projectId,
  ]);
  await svc.db.query("INSERT INTO playbook_review_decisions (run_id, user_playbook_id, decision, reason, decided_at) VALUES ($1, $2, 'accept', 'kept', 1)", [
    runId,
    userPlaybookId,
  ]);
  return agentPlaybookId;
}

async function untilComplete(purgeId: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    await svc.learningIdle();
    const status = await ok("GET", `/api/governance/purge-operations/${purgeId}`, undefined);
    if (status.status === "complete" || status.status === "failed") return status;
    await Bun.sleep(50);
  }
  throw new Error(`purge ${purgeId} did not finish`);
}

/** Bounded by the pass interval (PHYSICAL_REMOVAL_INTERVAL_SECONDS) and the pass itself. */
async function untilPhysicallyRemoved(purgeId: string) {
  const end = Date.now() + (PHYSICAL_REMOVAL_INTERVAL_SECONDS + 30) * 1000;
  for (;;) {
    const status = await ok("GET", `/api/governance/purge-operations/${purgeId}`, undefined);
    if (status.phase === "done" || Date.now() > end) return status;
    await Bun.sleep(100);
  }
}

async function exportOf(userId: string, projectId = "default") {
  const response = await call("POST", "/api/governance/export-user", { user_id: userId, request_id: `export-${crypto.randomUUID()}` }, projectId);
  expect(response.status).toBe(200);
  return UserExportBundle.parse(response.body);
}

describe("erase-user", () => {
  let agentPlaybookId: number;
  let firstAnswer: any;

  test("before: the subject is everywhere a user's data lives, in both projects", async () => {
    const seeded = await seedUser(SUBJECT, "default");
    agentPlaybookId = await linkLineage(seeded.userPlaybookId, "default");
    await seedUser(SUBJECT, SECOND);
    await seedUser(NEIGHBOUR, "default");
    const found = Object.keys(await findTextEverywhere(svc.db, SUBJECT, scopeOf()));
    for (const table of [
      "requests",
      "interactions",
      "profiles",
      "profile_change_log",
      "user_playbooks",
      "learning_users",
      "learning_cursors",
      "llm_usage",
      "session_outcomes",
      "search_evidence",
      "search_session_served",
      "generation_runs",
    ]) {
      expect(found.some((cell) => cell.startsWith(`${table}.`))).toBe(true);
    }
    const bundle = await exportOf(SUBJECT);
    expect(bundle.counts.interactions).toBe(4);
    expect(bundle.user_playbooks.some((row) => (row.aggregated_into as number[]).includes(agentPlaybookId))).toBe(true);
  });

  test("erases the subject from the project: the catalog scan finds them nowhere, reads and export return nothing", async () => {
    const answer = await call("POST", "/api/governance/erase-user", { user_id: SUBJECT, request_id: "gdpr-ticket-1" });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ created: true, status: "queued", phase: "delete", completed_at: null, subject_ref: expect.stringMatching(/^subj_/) });
    expect(JSON.stringify(answer.body)).not.toContain(SUBJECT);
    firstAnswer = answer.body;
    const complete = await untilComplete(answer.body.purge_id);
    expect(complete).toMatchObject({ status: "complete", error_code: null });
    expect(complete.completed_at).toBeGreaterThan(0);
    // Complete once the rows are gone; done once the physical removal pass removed their bytes.
    const done = await untilPhysicallyRemoved(answer.body.purge_id);
    expect(done).toMatchObject({ status: "complete", phase: "done", completed_at: complete.completed_at });
    expect(done.physically_removed_at).toBeGreaterThanOrEqual(complete.completed_at);
    expect(done.deleted_counts).toMatchObject({
      interactions: 4,
      requests: 1,
      session_outcomes: 1,
      search_evidence: 1,
      agent_playbook_sources: 1,
      playbook_review_decisions: 1,
      idempotency_keys: 1,
    });
    expect(done.deleted_counts.profiles).toBeGreaterThan(0);
    expect(done.deleted_counts.search_session_served).toBeGreaterThan(0);
    expect(done.deleted_counts.generation_runs).toBe(1);

    expect(await findTextEverywhere(svc.db, SUBJECT, scopeOf())).toEqual({});
    // Reads, search and export see nothing of them.
    expect((await ok("POST", "/api/get_profiles", { user_id: SUBJECT })).user_profiles).toEqual([]);
    expect((await ok("POST", "/api/get_user_playbooks", { user_id: SUBJECT })).user_playbooks).toEqual([]);
    expect((await ok("POST", "/api/get_interactions", { user_id: SUBJECT })).interactions).toEqual([]);
    // The subject's own kinds only: a search that serves anything (an agent playbook) records evidence naming the subject.
    const searched = await ok("POST", "/api/search", { query: "golden retriever vegan", user_id: SUBJECT, entity_types: ["profiles", "user_playbooks"] });
    expect([...searched.profiles, ...searched.user_playbooks]).toEqual([]);
    const bundle = await exportOf(SUBJECT);
    expect(Object.values(bundle.counts).every((count) => count === 0)).toBe(true);
    // The agent playbook stays; only its link to the erased playbook went.
    const agents = await svc.db.query("SELECT agent_playbook_id FROM agent_playbooks WHERE agent_playbook_id = $1", [agentPlaybookId]);
    expect(agents.length).toBe(1);
  });

  test("the other project, the neighbour and the other organisation keep everything", async () => {
    expect(Object.keys(await findTextEverywhere(svc.db, SUBJECT, scopeOf(SECOND))).length).toBeGreaterThan(5);
    expect((await ok("POST", "/api/get_profiles", { user_id: SUBJECT }, SECOND)).user_profiles.length).toBeGreaterThan(0);
    expect((await exportOf(NEIGHBOUR)).counts.interactions).toBe(4);
  });

  test("the same user_id and request_id return the same operation, also after completion", async () => {
    const again = await call("POST", "/api/governance/erase-user", { user_id: SUBJECT, request_id: "gdpr-ticket-1" });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ purge_id: firstAnswer.purge_id, created: false, status: "complete", subject_ref: firstAnswer.subject_ref });
    const operations = await svc.db.query("SELECT purge_id FROM purge_operations WHERE org_id = $1", [tenant.orgId]);
    expect(operations).toEqual([{ purge_id: firstAnswer.purge_id }]);
  });

  test("the audit holds minimized references and counts; a suppression keeps imports from restoring the subject", async () => {
    const audit = await svc.db.query<any>(
      "SELECT action, subject_ref, request_ref, actor_ref, counts FROM governance_audit WHERE org_id = $1 ORDER BY audit_id",
      [tenant.orgId],
    );
    const erasure = audit.find((row) => row.action === "erase_user");
    expect(erasure).toMatchObject({ subject_ref: firstAnswer.subject_ref, request_ref: firstAnswer.request_ref, actor_ref: `member:${tenant.ownerId}` });
    expect(erasure.counts.interactions).toBe(4);
    expect(audit.filter((row) => row.action === "export_user").length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(audit)).not.toContain(tenant.governanceSession);
    const suppressed = await svc.db.query("SELECT project_id, subject_ref FROM subject_suppressions WHERE org_id = $1", [tenant.orgId]);
    expect(suppressed).toEqual([{ project_id: "default", subject_ref: firstAnswer.subject_ref }]);
  });

  test("the erased user may come back: a later publish is new data", async () => {
    await ok("POST", "/api/publish_interaction", {
      user_id: SUBJECT,
      session_id: "new-session",
      interaction_data_list: [{ role: "User", content: "hello again" }],
    });
    expect((await exportOf(SUBJECT)).counts.interactions).toBe(1);
  });
});

describe("governance credentials and input", () => {
  test("API keys and login sessions are refused; nothing is started", async () => {
    for (const token of [tenant.fullKey, tenant.limitedKey, tenant.loginSession]) {
      const response = await svc.call("POST", "/api/governance/erase-user", { user_id: NEIGHBOUR, request_id: "r" }, bearer(token));
      expect(response.status).toBe(403);
      expect((await svc.call("POST", "/api/governance/export-user", { user_id: NEIGHBOUR, request_id: "r" }, bearer(token))).status).toBe(403);
    }
    const local = await svc.call("POST", "/api/governance/erase-user", { user_id: NEIGHBOUR, request_id: "r" });
    expect(local.status).toBe(401);
    expect(await svc.db.query("SELECT purge_id FROM purge_operations WHERE subject_user_id IS NOT NULL")).toEqual([]);
  });

  test("another organisation's purge operation is 404, and its erase reaches only its own project", async () => {
    const mine = await ok("POST", "/api/governance/erase-user", { user_id: "nobody-here", request_id: "r-404" });
    const theirs = await svc.call("GET", `/api/governance/purge-operations/${mine.purge_id}`, undefined, bearer(other.governanceSession));
    expect(theirs.status).toBe(404);
    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: NEIGHBOUR, request_id: "cross" }, bearer(other.governanceSession));
    expect(erased.status).toBe(202);
    await untilComplete(mine.purge_id);
    await svc.learningIdle();
    expect((await exportOf(NEIGHBOUR)).counts.interactions).toBe(4);
  });

  test("a blank user_id or a missing request_id answers 422 naming the field and starts nothing", async () => {
    const before = (await svc.db.query("SELECT purge_id FROM purge_operations")).length;
    const blank = await call("POST", "/api/governance/erase-user", { user_id: "  ", request_id: "r" });
    expect(blank.status).toBe(422);
    expect(JSON.stringify(blank.body.detail)).toContain("user_id");
    const missing = await call("POST", "/api/governance/erase-user", { user_id: NEIGHBOUR });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.body.detail)).toContain("request_id");
    const unknown = await call("GET", "/api/governance/purge-operations/purge_unknown", undefined);
    expect(unknown.status).toBe(404);
    expect((await svc.db.query("SELECT purge_id FROM purge_operations")).length).toBe(before);
  });

  test("the data-source stream routes answer 404 for an unknown stream and erase nothing", async () => {
    const response = await call("POST", "/api/data-sources/streams/stream-1/purge-user", { user_id: NEIGHBOUR, request_id: "r" });
    expect(response.status).toBe(404);
    expect(response.body.detail).toContain("stream-1");
    const scoped = await svc.call(
      "POST",
      "/api/projects/default/data-sources/streams/stream-1/purge-preview",
      { user_id: NEIGHBOUR, request_id: "r" },
      asGovernance("default"),
    );
    expect(scoped.status).toBe(404);
    expect((await exportOf(NEIGHBOUR)).counts.interactions).toBe(4);
  });
});
