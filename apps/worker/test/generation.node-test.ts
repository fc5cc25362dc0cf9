// Generation runs in full mode: each is a Temporal workflow whose id is the run id, run by a worker
// process. Needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createLlm } from "@als/ai";
import { NewUserPlaybook, PublishInteractionRequest } from "@als/contract";
import { addUserPlaybooks, type CoreDeps, getGenerationRun, publishInteractions, reviewUserPlaybooks, systemClock } from "@als/core";
import { playbookReviews, type Scope, userPlaybooks } from "@als/db";
import { registerProject } from "@als/test-support/register-project.ts";
import { holdCall, scriptedReply, scriptedReview } from "@als/test-support/scripted-llm.ts";
import { openFullModeEnvironment, orchestratorOn, spawnWorker, stopWorker } from "./worker-process.ts";

let env: Awaited<ReturnType<typeof openFullModeEnvironment>>;
const taskQueue = `generation-test-${randomUUID()}`;
/** The first review of the rejected playbook hangs until released: the run caught in the middle. */
const hold = holdCall((request) => request.schemaName === "playbook_review" && request.user.includes("content: DROP"));

before(async () => {
  env = await openFullModeEnvironment(async (request) => {
    await hold.wait(request);
    return request.schemaName === "playbook_review" ? scriptedReview(request) : scriptedReply(request);
  });
});

after(() => env?.close());

test("an applied review whose worker is killed mid-run is completed exactly once by the next worker", { timeout: 240_000 }, async () => {
  const scope: Scope = await registerProject(env.db, { orgId: `org-${randomUUID().slice(0, 8)}`, projectId: "default" });
  const deps: CoreDeps = {
    db: env.db,
    services: env.services,
    embedder: env.embedder,
    now: systemClock,
    llm: createLlm({ kind: "openai-compatible", model: "scripted-model", baseUrl: env.llm.baseUrl, contextWindowTokens: 128_000 }),
    orchestrator: orchestratorOn(env.client, taskQueue),
  };
  const published = await publishInteractions(
    deps,
    scope,
    PublishInteractionRequest.parse({ user_id: "ana", session_id: "s", interaction_data_list: [{ role: "User", content: "Where is my order?" }] }),
  );
  // Added in this order, reviewed newest first: the edit, the rejection, the acceptance.
  const [keep, drop, edit] = await addUserPlaybooks(
    deps,
    scope,
    ["KEEP give the tracking link", "DROP promise next-day delivery", "Say when it ships"].map((content) =>
      NewUserPlaybook.parse({ user_id: "ana", trigger: "Order status", content, request_id: published.request.request_id }),
    ),
  );
  const first = spawnWorker({ databaseUrl: env.database.url, taskQueue, llmBaseUrl: env.llm.baseUrl });
  const now = systemClock();
  const { run_id } = await reviewUserPlaybooks(deps, scope, { start_time: now - 60, end_time: now + 60, top_k: 10, report_only: false });
  // The edit is committed; the rejection is being reviewed when the worker dies.
  await hold.reached;
  await stopWorker(first, "SIGKILL");
  hold.release();

  const second = spawnWorker({ databaseUrl: env.database.url, taskQueue, llmBaseUrl: env.llm.baseUrl });
  try {
    for (;;) {
      const run = await getGenerationRun(deps, scope, run_id);
      if (run.status === "succeeded") break;
      assert.notEqual(run.status, "failed", `run failed: ${run.error_code}`);
      await delay(250);
    }
    const run = await getGenerationRun(deps, scope, run_id);
    assert.equal(run.attempts, 2);
    assert.deepEqual(run.result, { accept: 1, reject: 1, edit: 1, skip: 0 });
    const decisions = await playbookReviews.decisionsOfRun(env.db, run_id);
    assert.deepEqual(Object.fromEntries(decisions.map((d) => [d.user_playbook_id, d.decision])), {
      [keep!.user_playbook_id]: "accept",
      [drop!.user_playbook_id]: "reject",
      [edit!.user_playbook_id]: "edit",
    });
    const broadened = await userPlaybooks.listUserPlaybooks(env.db, scope, { userId: "ana", textContains: "broadened" }, 10);
    assert.deepEqual(
      broadened.map((p) => p.user_playbook_id),
      [decisions.find((d) => d.decision === "edit")!.replacement_id],
      "one replacement, not one per attempt",
    );
    const reviews = env.llm.requests.filter((r) => r.schemaName === "playbook_review");
    assert.deepEqual(
      ["Say when it ships", "DROP", "KEEP"].map((text) => reviews.filter((r) => r.user.includes(`content: ${text}`)).length),
      [1, 2, 1],
    );
    // The run commits inside the step; the workflow completes when the step's activity returns.
    const handle = env.client.workflow.getHandle(run_id);
    await handle.result();
    const description = await handle.describe();
    assert.equal(description.type, "generationRunWorkflow");
    assert.equal(description.status.name, "COMPLETED");
  } finally {
    await stopWorker(second, "SIGTERM");
  }
});
