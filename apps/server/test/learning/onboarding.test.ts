import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_SESSION_INACTIVITY_SECONDS } from "@als/core";
import { members } from "@als/db";
import { openSession } from "@als/identity";
import { registerProject } from "@als/test-support/register-project.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

// The dashboard walkthrough of a project (contract: Dashboard onboarding), as a member and the
// member's agent go through it: every milestone the client cannot set is verified from what the
// service persisted (published requests, extraction, API-key searches, stored evaluations).

let svc: TestService;
let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
let owner: Tenant;
let stranger: Tenant;
const BASE = "/api/projects/default/onboarding";

beforeAll(async () => {
  scripted = await startScriptedLlm();
  svc = await startTestService({ llm: scripted.llm, authMode: "required" });
  owner = await createTenant(svc.deps, "onboarding-owner");
  stranger = await createTenant(svc.deps, "onboarding-stranger");
});
afterAll(async () => {
  await svc.close();
  scripted.server.close();
});

const member = (token = owner.loginSession) => bearer(token);
const status = async (token = owner.loginSession) => (await svc.call("GET", BASE, undefined, member(token))).body;
const patch = (body: object, token = owner.loginSession) => svc.call("PATCH", BASE, body, member(token));
const step = (answer: { steps: { id: string }[] }, id: string) => answer.steps.find((each) => each.id === id) as any;

/** Publishes with the owner's API key, as the agent does. */
async function publish(userId: string, sessionId: string, source: string, content: string) {
  const answer = await svc.call(
    "POST",
    "/api/publish_interaction",
    { user_id: userId, session_id: sessionId, source, force_extraction: true, interaction_data_list: [{ role: "User", content }] },
    bearer(owner.fullKey),
  );
  expect(answer.status).toBe(200);
  await svc.learningIdle();
  return answer.body.request_id as string;
}

describe("who may use onboarding", () => {
  test("an API key is refused, no credential is 401, another organisation's project is 404", async () => {
    expect((await svc.call("GET", BASE, undefined, bearer(owner.fullKey))).status).toBe(403);
    expect((await svc.call("GET", BASE)).status).toBe(401);
    await registerProject(svc.db, { orgId: owner.orgId, projectId: "owners-second" });
    expect((await svc.call("GET", "/api/projects/owners-second/onboarding", undefined, member(stranger.loginSession))).status).toBe(404);
    // A header naming another project than the URL's is refused.
    expect((await svc.call("GET", BASE, undefined, { ...member(), "x-service-project": "owners-second" })).status).toBe(403);
  });

  test("only the default project is eligible: others answer eligible false, and starting there is 404", async () => {
    const path = "/api/projects/owners-second/onboarding";
    const answer = await svc.call("POST", `${path}/initialize`, undefined, member());
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ project_id: "owners-second", eligible: false, run: null, steps: [] });
    expect((await svc.call("POST", `${path}/start`, { fresh: false }, member())).status).toBe(404);
  });
});

describe("the walkthrough, verified from evidence", () => {
  let runId: string;
  let requestId: string;
  let learningId: string;

  test("initialize starts a run; the API key the organisation holds is verified, nothing else is", async () => {
    expect((await status()).run).toBeNull();
    const answer = await svc.call("POST", `${BASE}/initialize`, undefined, member());
    expect(answer.status).toBe(200);
    runId = answer.body.run.run_id;
    expect(answer.body.run).toMatchObject({
      user_id: `example-${runId}`,
      session_id: `example-learn-${runId}`,
      source: "service-onboarding",
      walkthrough_version: 1,
    });
    expect(step(answer.body, "create_api_key")).toMatchObject({ complete: true, state: "complete" });
    expect(step(answer.body, "publish_conversation")).toMatchObject({ complete: false, state: "ready", reason_code: "awaiting_publish" });
    expect(step(answer.body, "extract_learnings")).toMatchObject({ state: "blocked", reason_code: "needs_publish" });
    expect(answer.body.core_complete).toBe(false);
    // start {fresh: false} is the same run again.
    const again = await svc.call("POST", `${BASE}/start`, { fresh: false }, member());
    expect(again.body.run.run_id).toBe(runId);
  });

  test("publishing the example with the API key completes publish and extraction on refresh", async () => {
    requestId = await publish(`example-${runId}`, `example-learn-${runId}`, "service-onboarding", "I am vegan and I own a golden retriever");
    const answer = await svc.call("POST", `${BASE}/refresh`, undefined, member());
    expect(answer.body.run.publish_request_ids).toEqual([requestId]);
    expect(step(answer.body, "publish_conversation").complete).toBe(true);
    expect(step(answer.body, "extract_learnings")).toMatchObject({ complete: true });
    expect(answer.body.learning_status).toBe("done");
    expect(answer.body.learnings.length).toBeGreaterThan(0);
    learningId = answer.body.learnings[0].id;
    expect(step(answer.body, "retrieve_learning")).toMatchObject({ state: "ready", reason_code: "awaiting_search" });
  });

  test("view_learning takes only a learning of the run's conversation", async () => {
    expect((await patch({ run_id: runId, action: "view_learning", evidence_id: "profile:someone-else" })).status).toBe(400);
    expect((await patch({ run_id: runId, action: "view_learning" })).status).toBe(422);
    const answer = await patch({ run_id: runId, action: "view_learning", evidence_id: learningId });
    expect(answer.status).toBe(200);
    expect(step(answer.body, "view_learning").complete).toBe(true);
    expect(answer.body.run.viewed_evidence_ids).toEqual([learningId]);
  });

  test("a search by a login session does not count; one by the API key that serves the learning does", async () => {
    const query = { query: "what diet does the user follow", user_id: `example-${runId}` };
    expect((await svc.call("POST", "/api/search", query, member())).status).toBe(200);
    expect(step((await svc.call("POST", `${BASE}/refresh`, undefined, member())).body, "retrieve_learning").complete).toBe(false);
    const searched = await svc.call("POST", "/api/search", query, bearer(owner.fullKey));
    expect(searched.status).toBe(200);
    const answer = await svc.call("POST", `${BASE}/refresh`, undefined, member());
    expect(step(answer.body, "retrieve_learning").complete).toBe(true);
    expect(answer.body.run.retrieved_learning_ids).toContain(learningId);
    expect(answer.body.core_complete).toBe(true);
  });

  test("the session's stored evaluation completes grading; view_evaluation takes only its id", async () => {
    expect(step(await status(), "grade_session")).toMatchObject({ state: "waiting", reason_code: "evaluation_pending" });
    svc.clock.now += DEFAULT_SESSION_INACTIVITY_SECONDS + 1;
    svc.reconciler.poke();
    await svc.learningIdle();
    const answer = await svc.call("POST", `${BASE}/refresh`, undefined, member());
    expect(step(answer.body, "grade_session").complete).toBe(true);
    expect(answer.body.evaluation).toMatchObject({ session_id: `example-learn-${runId}`, user_id: `example-${runId}` });
    const evaluationId = answer.body.evaluation_id;
    expect(evaluationId).toBe(String(answer.body.evaluation.result_id));
    expect((await patch({ run_id: runId, action: "view_evaluation", evidence_id: "999999" })).status).toBe(400);
    expect(step((await patch({ run_id: runId, action: "view_evaluation", evidence_id: evaluationId })).body, "view_evaluation").complete).toBe(true);
  });

  test("the experiment step: review needs the running experiment; defer completes it with its reason code", async () => {
    expect((await patch({ run_id: runId, action: "review_experiment", evidence_id: "no-such-experiment" })).status).toBe(400);
    expect((await patch({ run_id: runId, action: "defer_experiment", evidence_id: "x" })).status).toBe(422);
    const answer = await patch({ run_id: runId, action: "defer_experiment" });
    expect(step(answer.body, "set_up_experiment")).toMatchObject({ complete: true, reason_code: "experiment_deferred" });
    expect(answer.body.run.milestones.experiment_deferred).toBeNumber();
    expect(answer.body.steps.every((each: { complete: boolean }) => each.complete)).toBe(true);
    expect(answer.body.show_full).toBe(false);
  });

  test("resume, unknown actions and extra fields are 422; a run that is not current is 409", async () => {
    expect((await patch({ run_id: runId, action: "resume" })).status).toBe(422);
    expect((await patch({ run_id: runId, action: "dismiss", colour: "blue" })).status).toBe(422);
    expect((await patch({ run_id: "not-the-run", action: "dismiss" })).status).toBe(409);
  });

  test("the conversation preview: at most three messages of at most 1,000 characters, and it changes nothing", async () => {
    const long = `I keep my notes in a paper notebook. ${"x".repeat(1_500)}`;
    const second = await publish(`example-${runId}`, `example-${runId}`, "service-onboarding", long);
    const before = (await status()).run.revision;
    const preview = await svc.call("GET", `${BASE}/conversation?run_id=${runId}&request_id=${second}`, undefined, member());
    expect(preview.status).toBe(200);
    expect(preview.body.has_more).toBe(false);
    expect(preview.body.messages).toHaveLength(1);
    expect(preview.body.messages[0]).toMatchObject({ role: "User", truncated: true });
    expect(preview.body.messages[0].content).toHaveLength(1_000);
    expect((await status()).run.revision).toBe(before);
    expect((await svc.call("GET", `${BASE}/conversation?run_id=other&request_id=${second}`, undefined, member())).status).toBe(409);
  });

  test("switching to an imported conversation resets conversation milestones and keeps API-key and experiment setup", async () => {
    const unrelated = await publish("customer-1", "support-1", "", "plain request without a source");
    expect((await patch({ run_id: runId, action: "use_imported_conversation", evidence_id: unrelated })).status).toBe(400);
    const imported = await publish("customer-2", "support-2", "zendesk", "I always fly economy");
    const answer = await patch({ run_id: runId, action: "use_imported_conversation", evidence_id: imported });
    expect(answer.status).toBe(200);
    expect(answer.body.run).toMatchObject({ conversation: "imported", publish_request_ids: [imported], viewed_evidence_ids: [] });
    expect(answer.body.run.imported_conversations).toMatchObject([{ request_id: imported, user_id: "customer-2", source: "zendesk" }]);
    expect(answer.body.run.milestones).toMatchObject({ learning_viewed: null, evaluation_viewed: null, session_graded: null });
    expect(answer.body.run.milestones.api_key_created).toBeNumber();
    expect(answer.body.run.milestones.experiment_deferred).toBeNumber();
    // The preview follows the selection: the example's request is no longer the conversation shown.
    expect((await svc.call("GET", `${BASE}/conversation?run_id=${runId}&request_id=${requestId}`, undefined, member())).status).toBe(409);
    const back = await patch({ run_id: runId, action: "use_published_sample" });
    expect(back.body.run.conversation).toBe("published_sample");
  });

  test("use_published_sample without a sample is 400 and keeps the import", async () => {
    const fresh = await svc.call("POST", `${BASE}/start`, { fresh: true }, member());
    const newRun = fresh.body.run.run_id;
    expect(newRun).not.toBe(runId);
    expect(fresh.body.run.milestones.experiment_deferred).toBeNumber();
    expect(fresh.body.run.milestones.conversation_published).toBeNull();
    const imported = await publish("customer-3", "support-3", "zendesk", "I prefer email to phone calls");
    await patch({ run_id: newRun, action: "use_imported_conversation", evidence_id: imported });
    const refused = await patch({ run_id: newRun, action: "use_published_sample" });
    expect(refused.status).toBe(400);
    expect((await status()).run).toMatchObject({ conversation: "imported", imported_conversations: [{ request_id: imported }] });
    // The earlier run's example records are kept.
    const earlier = await svc.call("POST", "/api/get_requests", { user_id: `example-${runId}` }, bearer(owner.fullKey));
    expect(earlier.body.sessions.length).toBeGreaterThan(0);
    // The earlier run is stale now.
    expect((await patch({ run_id: runId, action: "dismiss" })).status).toBe(409);
  });

  test("progress is the project's: a teammate's concurrent updates lose nothing (the overtaken ones are 409)", async () => {
    const runNow = (await status()).run;
    const answers = await Promise.all(Array.from({ length: 6 }, () => patch({ run_id: runNow.run_id, action: "dismiss" })));
    const saved = answers.filter((answer) => answer.status === 200).length;
    expect(saved).toBeGreaterThan(0);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    const after = (await status()).run;
    expect(after.revision).toBe(runNow.revision + saved);
    expect(after.dismissed).toBe(true);
  });

  test("another organisation's member sees its own default project, none of this run", async () => {
    const theirs = await status(stranger.loginSession);
    expect(theirs).toMatchObject({ eligible: true, run: null, project_empty: true });
  });
});

describe("rules a fresh organisation's walkthrough keeps", () => {
  let third: Tenant;
  let teammateSession: string;
  const as = (token: string) => member(token);

  beforeAll(async () => {
    third = await createTenant(svc.deps, "onboarding-third");
    // A second member of the same organisation, as an accepted invitation leaves one.
    const teammate = { member_id: `mem_${crypto.randomUUID()}`, org_id: third.orgId };
    await members.insertMember(
      svc.db,
      { ...teammate, email: `mate-${crypto.randomUUID()}@third.example`, password_hash: null, role: "member", email_verified_at: svc.clock.now, invited: true },
      svc.clock.now,
    );
    teammateSession = (await openSession(svc.deps, teammate, "login")).token;
  });

  test("a teammate sees the run a member started and the steps the member's actions completed", async () => {
    const started = await svc.call("POST", `${BASE}/initialize`, undefined, as(third.loginSession));
    await svc.call("PATCH", BASE, { run_id: started.body.run.run_id, action: "defer_experiment" }, as(third.loginSession));
    const seen = await svc.call("GET", BASE, undefined, as(teammateSession));
    expect(seen.status).toBe(200);
    expect(seen.body.run.run_id).toBe(started.body.run.run_id);
    expect(step(seen.body, "set_up_experiment")).toMatchObject({ complete: true, reason_code: "experiment_deferred" });
  });

  test("an evidence_id over 255 characters is 422 naming it, and changes nothing", async () => {
    const before = (await status(third.loginSession)).run;
    const answer = await svc.call(
      "PATCH",
      BASE,
      { run_id: before.run_id, action: "view_learning", evidence_id: `profile:${"x".repeat(248)}` },
      as(third.loginSession),
    );
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain("evidence_id");
    expect((await status(third.loginSession)).run.revision).toBe(before.revision);
  });

  test("a search with the API key that serves nothing does not count as retrieval", async () => {
    const run = (await status(third.loginSession)).run;
    const searched = await svc.call("POST", "/api/search", { query: "anything about this user", user_id: run.user_id }, bearer(third.fullKey));
    expect(searched.status).toBe(200);
    const answer = await svc.call("POST", `${BASE}/refresh`, undefined, as(third.loginSession));
    expect(answer.body.run.retrieved_learning_ids).toEqual([]);
    expect(step(answer.body, "retrieve_learning").complete).toBe(false);
    expect(answer.body.run.milestones.learning_retrieved).toBeNull();
  });

  test("dismissing is one-way; a fresh start begins a new run that is not dismissed", async () => {
    const run = (await status(third.loginSession)).run;
    const dismissed = await svc.call("PATCH", BASE, { run_id: run.run_id, action: "dismiss" }, as(third.loginSession));
    expect(dismissed.body).toMatchObject({ run: { dismissed: true }, show_full: false });
    expect(dismissed.body.run.dismissed_at).toBeNumber();
    // Dismissing again keeps it dismissed, at the first time.
    const again = await svc.call("PATCH", BASE, { run_id: run.run_id, action: "dismiss" }, as(teammateSession));
    expect(again.body.run).toMatchObject({ dismissed: true, dismissed_at: dismissed.body.run.dismissed_at });
    const fresh = await svc.call("POST", `${BASE}/start`, { fresh: true }, as(teammateSession));
    expect(fresh.body.run.run_id).not.toBe(run.run_id);
    expect(fresh.body.run).toMatchObject({ dismissed: false, dismissed_at: null });
    expect(fresh.body.show_full).toBe(true);
  });
});
