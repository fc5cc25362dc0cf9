import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { GENERATION_LEASE_SECONDS, getGenerationRun, rerunGeneration, reviewUserPlaybooks, runGenerationStep, startManualGeneration } from "@als/core";
import { LOCAL_SCOPE, playbookReviews } from "@als/db";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { holdCall, scriptedReply, scriptedReview, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { statusName } from "@als/test-support/wire-status.ts";

// Generation runs driven by hand, as workers would run them: one is caught in the middle of its
// work, and another takes it over once its lease has expired.

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let hold: ReturnType<typeof holdCall> | undefined;
/** Extraction fails (a provider's refusal) for transcripts mentioning this. */
let failOn: string | undefined;

const scope = LOCAL_SCOPE;
const turn = (content: string) => ({ role: "User", content });

beforeAll(async () => {
  llm = await startScriptedLlm(async (request) => {
    await hold?.wait(request);
    if (failOn && request.schemaName === "profile_extraction" && request.user.includes(failOn)) {
      // Not a 400: the provider client would take that for a server without json_schema support.
      return { status: 422, error: { type: "invalid_request_error", message: "refused" } };
    }
    return request.schemaName === "playbook_review" ? scriptedReview(request) : scriptedReply(request);
  });
  svc = await startTestService({ llm: llm.llm });
  // Requests of one interaction stay below the default stride: learning leaves them alone.
  for (const [userId, content] of [
    ["ana", "I am ana and I have a golden retriever called Biscuit."],
    ["bo", "I am bo and I am vegan."],
    ["bo", "I am bo and I am in Lisbon this week."],
    ["cy", "I am cy and I am vegan."],
  ]) {
    expect((await svc.call("POST", "/api/publish_interaction", { user_id: userId, session_id: userId, interaction_data_list: [turn(content!)] })).status).toBe(
      200,
    );
  }
  await svc.learningIdle();
  // Windows of one interaction: bo's rerun has two.
  expect((await svc.call("POST", "/api/update_config", { window_size: 1, stride_size: 1 })).status).toBe(200);
  // The runs here are driven by hand: the service's reconciler leaves them alone.
  svc.reconciler.stop();
});
afterAll(async () => {
  await svc.close();
  await llm.server.close();
});

const profilesOf = async (userId: string) =>
  ((await svc.call("POST", "/api/get_profiles", { user_id: userId, status_filter: ["CURRENT", "PENDING", "ARCHIVED"] })).body.user_profiles as any[])
    .map((p) => `${statusName(p.status)}: ${p.content}`)
    .sort();
const extractionsOf = (userId: string) => llm.server.requests.filter((r) => r.schemaName === "profile_extraction" && r.user.includes(`I am ${userId} `)).length;
const mentions = (text: string) => (request: FakeLlmRequest) => request.user.includes(text);

/**
 * Runs `runId` on a first worker until it reaches the held call, expires its lease, lets a second
 * worker run it to the end, then lets the first one go on: it must commit nothing more.
 */
async function takenOverMidway(runId: string, heldCall: (request: FakeLlmRequest) => boolean) {
  hold = holdCall(heldCall);
  const first = runGenerationStep(svc.deps, scope, runId, "first-worker");
  await hold.reached;
  svc.clock.now += GENERATION_LEASE_SECONDS + 1;
  expect(await runGenerationStep(svc.deps, scope, runId, "second-worker")).toMatchObject({ next: "done" });
  hold.release();
  expect(await first).toMatchObject({ next: "done" });
  hold = undefined;
  return getGenerationRun(svc.deps, scope, runId);
}

describe("generation runs", () => {
  test("a manual generation taken over midway extracts each user once", async () => {
    const queued = await startManualGeneration(svc.deps, scope, "profile", {});
    expect(queued).toMatchObject({ kind: "manual", extractor: "profile", status: "queued", attempts: 0 });
    const run = await takenOverMidway(queued.run_id, mentions("I am bo "));
    expect(run).toMatchObject({ status: "succeeded", attempts: 2, error_code: null, result: { users: 3, learnings_created: 3 } });
    expect(await profilesOf("ana")).toEqual(["CURRENT: Owns a golden retriever named Biscuit"]);
    expect(await profilesOf("bo")).toEqual(["CURRENT: Is in Lisbon this week"]);
    expect(await profilesOf("cy")).toEqual(["CURRENT: Is vegan"]);
    // ana's output was committed before the takeover: the second worker went on after it.
    expect([extractionsOf("ana"), extractionsOf("bo"), extractionsOf("cy")]).toEqual([1, 2, 1]);
  });

  test("a rerun taken over in the middle of a user regenerates that user once", async () => {
    const before = { ana: extractionsOf("ana"), bo: extractionsOf("bo") };
    const { runId } = await rerunGeneration(svc.deps, scope, "profile", {}, false);
    // bo's first window is committed when the first worker is caught in the second.
    const run = await takenOverMidway(runId, mentions("I am bo and I am in Lisbon"));
    expect(run).toMatchObject({ status: "succeeded", attempts: 2, result: { users: 3, learnings_created: 4 } });
    expect(await profilesOf("bo")).toEqual(["CURRENT: Is in Lisbon this week", "PENDING: Is in Lisbon this week", "PENDING: Is vegan"]);
    expect(await profilesOf("ana")).toEqual(["CURRENT: Owns a golden retriever named Biscuit", "PENDING: Owns a golden retriever named Biscuit"]);
    expect([extractionsOf("ana") - before.ana, extractionsOf("bo") - before.bo]).toEqual([1, 4]);
  });

  test("an applied review taken over midway decides each playbook once", async () => {
    const published = await svc.call("POST", "/api/publish_interaction", {
      user_id: "dee",
      session_id: "order",
      interaction_data_list: [turn("Where is my order?"), { role: "Agent", content: "It ships tomorrow." }],
    });
    const start = svc.clock.now;
    const ids: number[] = [];
    for (const content of ["KEEP give the tracking link", "DROP promise next-day delivery", "Say when it ships"]) {
      svc.clock.now += 10;
      ids.push(...(await addUserPlaybooks(svc, [{ user_id: "dee", trigger: "Order status", content, request_id: published.body.request_id }])));
    }
    const [keep, drop, edit] = ids;
    const { run_id } = await reviewUserPlaybooks(svc.deps, scope, { start_time: start, end_time: svc.clock.now, top_k: 10, report_only: false });
    // Newest first: the edit is committed when the first worker is caught reviewing the rejection.
    const run = await takenOverMidway(run_id, mentions("content: DROP"));
    expect(run).toMatchObject({ kind: "review_apply", status: "succeeded", attempts: 2, result: { accept: 1, reject: 1, edit: 1, skip: 0 } });
    expect(await playbookReviews.reviewRunStatus(svc.db, run_id)).toEqual({ status: "completed", error_code: null });
    const decisions = await playbookReviews.decisionsOfRun(svc.db, run_id);
    expect(Object.fromEntries(decisions.map((d) => [d.user_playbook_id, d.decision]))).toEqual({ [edit!]: "edit", [drop!]: "reject", [keep!]: "accept" });
    const reviews = llm.server.requests.filter((r) => r.schemaName === "playbook_review");
    expect(["Say when it ships", "DROP", "KEEP"].map((text) => reviews.filter((r) => r.user.includes(`content: ${text}`)).length)).toEqual([1, 2, 1]);
    const replacements = (await svc.call("POST", "/api/get_user_playbooks", { user_id: "dee", query: "broadened" })).body.user_playbooks;
    expect(replacements.map((p: any) => p.user_playbook_id)).toEqual([decisions.find((d) => d.decision === "edit")!.replacement_id]);
  });

  test("a provider failure retries after a backoff from where the run got to; out of attempts, it fails with a safe code", async () => {
    failOn = "I am cy ";
    try {
      const before = { ana: extractionsOf("ana"), cy: extractionsOf("cy") };
      const queued = await startManualGeneration(svc.deps, scope, "profile", {});
      const first = await runGenerationStep(svc.deps, scope, queued.run_id);
      expect(first).toEqual({ next: "retry", at: svc.clock.now + 10, unexpected: undefined });
      expect(await getGenerationRun(svc.deps, scope, queued.run_id)).toMatchObject({ status: "retrying", error_code: "provider_unavailable", attempts: 1 });
      // Not due yet: nothing runs.
      expect(await runGenerationStep(svc.deps, scope, queued.run_id)).toMatchObject({ next: "retry" });
      failOn = undefined;
      svc.clock.now += 10;
      expect(await runGenerationStep(svc.deps, scope, queued.run_id)).toMatchObject({ next: "done" });
      expect(await getGenerationRun(svc.deps, scope, queued.run_id)).toMatchObject({
        status: "succeeded",
        attempts: 2,
        error_code: null,
        result: { users: 4 },
      });
      expect([extractionsOf("ana") - before.ana, extractionsOf("cy") - before.cy]).toEqual([1, 2]);

      failOn = "I am ana ";
      const failing = await startManualGeneration(svc.deps, scope, "profile", { userId: "ana" });
      for (let attempt = 1; ; attempt++) {
        const outcome = await runGenerationStep(svc.deps, scope, failing.run_id);
        if (outcome.next !== "retry") break;
        expect(outcome.at).toBe(svc.clock.now + 10 * 2 ** (attempt - 1));
        svc.clock.now = outcome.at;
      }
      expect(await getGenerationRun(svc.deps, scope, failing.run_id)).toMatchObject({ status: "failed", attempts: 5, error_code: "provider_unavailable" });
    } finally {
      failOn = undefined;
    }
  });

  test("a worker that stops puts its run back in the queue at its next commit; the next worker goes on after it", async () => {
    const before = extractionsOf("ana");
    const queued = await startManualGeneration(svc.deps, scope, "profile", {});
    hold = holdCall(mentions("I am bo "));
    const stopping = new AbortController();
    const stopped = runGenerationStep(svc.deps, scope, queued.run_id, "stopping-worker", stopping.signal);
    await hold.reached;
    stopping.abort();
    hold.release();
    hold = undefined;
    expect(await stopped).toEqual({ next: "busy" });
    expect(await getGenerationRun(svc.deps, scope, queued.run_id)).toMatchObject({ status: "queued", progress: { after_user: "ana" } });
    expect(await runGenerationStep(svc.deps, scope, queued.run_id)).toMatchObject({ next: "done" });
    expect(await getGenerationRun(svc.deps, scope, queued.run_id)).toMatchObject({ status: "succeeded", attempts: 2, result: { users: 4 } });
    expect(extractionsOf("ana") - before).toBe(1);
  });

  test("another project's run, or an unknown one, is not found", async () => {
    const elsewhere = await startManualGeneration(svc.deps, await registerProject(svc.db, { orgId: scope.orgId, projectId: "other" }), "profile", {});
    await expect(getGenerationRun(svc.deps, scope, elsewhere.run_id)).rejects.toMatchObject({ code: "not_found" });
    await expect(getGenerationRun(svc.deps, scope, "nope")).rejects.toMatchObject({ code: "not_found" });
  });
});
