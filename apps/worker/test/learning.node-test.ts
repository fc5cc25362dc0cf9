// Learning in full mode: publishes signal-with-start a per-user Temporal workflow, whose activities run
// the learning step on a worker process. Needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { PublishInteractionRequest } from "@als/contract";
import { type CoreDeps, learningStatusOf, publishInteractions, systemClock, waitForLearning } from "@als/core";
import { learning, profiles, type Scope, userPlaybooks } from "@als/db";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { openFullModeEnvironment, orchestratorOn, spawnWorker as spawnWorkerProcess, stopWorker } from "./worker-process.ts";

let env: Awaited<ReturnType<typeof openFullModeEnvironment>>;
/** While set, profile extraction requests hang until it resolves: a window caught in the middle. */
let gate: Promise<void> | undefined;
/** While true, the provider refuses our credentials: learning stalls. */
let refuseCredentials = false;
const AUTH_ERROR: FakeLlmReply = { status: 401, error: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided" } };
const taskQueue = `learning-test-${randomUUID()}`;
const spawnWorker = () => spawnWorkerProcess({ databaseUrl: env.database.url, taskQueue, llmBaseUrl: env.llm.baseUrl });

before(async () => {
  env = await openFullModeEnvironment(async (request: FakeLlmRequest): Promise<FakeLlmReply> => {
    if (gate && request.schemaName === "profile_extraction") await gate;
    return refuseCredentials ? AUTH_ERROR : scriptedReply(request);
  });
});

after(() => env?.close());

/** Publishes as the API does in full mode: commit, then signal-with-start the user's workflow. */
async function publish(scope: Scope, body: object): Promise<string> {
  const deps: CoreDeps = {
    db: env.db,
    services: env.services,
    embedder: env.embedder,
    now: systemClock,
    orchestrator: orchestratorOn(env.client, taskQueue),
  };
  const published = await publishInteractions(deps, scope, PublishInteractionRequest.parse(body));
  return published.request.request_id;
}

async function waitUntilDone(scope: Scope, requestId: string, timeoutMs: number, wanted: "done" | "failed" = "done"): Promise<void> {
  const deps: CoreDeps = { db: env.db, services: env.services, embedder: env.embedder, now: systemClock };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, reason } = await learningStatusOf(deps, scope, requestId);
    if (status === wanted) return;
    if (Date.now() > deadline) assert.fail(`request ${requestId} still ${status}: ${reason}`);
    await delay(200);
  }
}

/** A scope of its own per test, registered as an organisation and project (tenant data references its project). */
const newScope = (): Promise<Scope> => registerProject(env.db, { orgId: `org-${randomUUID().slice(0, 8)}`, projectId: "default" });
const conversation = [
  { role: "User", content: "I am vegan and I have a golden retriever." },
  { role: "Agent", content: "Try roast chicken.", expert_content: "Try a chickpea curry — fully vegan." },
];

test("a publish starts the user's learning workflow, and the same conversation again adds nothing", { timeout: 180_000 }, async () => {
  const scope = await newScope();
  const worker = spawnWorker();
  try {
    const first = await publish(scope, { user_id: "ana", session_id: "s", force_extraction: true, interaction_data_list: conversation });
    await waitUntilDone(scope, first, 120_000);
    const learned = await profiles.listProfiles(env.db, scope, { userId: "ana" }, 100);
    assert.deepEqual(learned.map((p) => p.content).sort(), ["Is vegan", "Owns a golden retriever named Biscuit"]);
    assert.equal((await userPlaybooks.listUserPlaybooks(env.db, scope, { userId: "ana" }, 100)).length, 1);

    const again = await publish(scope, { user_id: "ana", session_id: "s2", force_extraction: true, interaction_data_list: conversation });
    await waitUntilDone(scope, again, 60_000);
    assert.equal((await profiles.listProfiles(env.db, scope, { userId: "ana" }, 100)).length, 2);
    assert.equal((await userPlaybooks.listUserPlaybooks(env.db, scope, { userId: "ana" }, 100)).length, 1);

    const description = await env.client.workflow.getHandle(`learn:${scope.orgId}:${scope.projectId}:ana`).describe();
    assert.equal(description.type, "learnUserWorkflow");
  } finally {
    await stopWorker(worker, "SIGTERM");
  }
});

test("a window interrupted by killing its worker is completed exactly once by the next worker", { timeout: 240_000 }, async () => {
  const scope = await newScope();
  let release!: () => void;
  gate = new Promise((resolve) => {
    release = resolve;
  });
  const first = spawnWorker();
  const requestId = await publish(scope, { user_id: "bo", session_id: "s", force_extraction: true, interaction_data_list: [{ content: "I am vegan" }] });
  const extractions = () => env.llm.requests.filter((r) => r.schemaName === "profile_extraction" && r.user.includes("I am vegan")).length;
  while (extractions() === 0) await delay(100);
  await stopWorker(first, "SIGKILL");
  gate = undefined;
  release();

  const second = spawnWorker();
  try {
    await waitUntilDone(scope, requestId, 180_000);
    assert.deepEqual(
      (await profiles.listProfiles(env.db, scope, { userId: "bo" }, 100)).map((p) => p.content),
      ["Is vegan"],
    );
    assert.ok(extractions() >= 2, "the window was extracted again after the kill");
    const usage = await learning.llmUsageOfRequest(env.db, scope, requestId);
    assert.deepEqual(usage.map((u) => u.stage).sort(), ["playbook_extraction", "profile_extraction"], "the window's output was committed once");
  } finally {
    await stopWorker(second, "SIGTERM");
  }
});

test("a publish overriding a stall is awaited through its workflow, and clearing the stall resumes the users it paused", { timeout: 180_000 }, async () => {
  const scope = await newScope();
  const worker = spawnWorker();
  try {
    refuseCredentials = true;
    const stalled = await publish(scope, { user_id: "cy", session_id: "s", force_extraction: true, interaction_data_list: [{ content: "I am vegan" }] });
    await waitUntilDone(scope, stalled, 60_000, "failed");
    const paused = await publish(scope, { user_id: "dee", session_id: "s", force_extraction: true, interaction_data_list: [{ content: "I am vegan" }] });
    await waitUntilDone(scope, paused, 60_000, "failed");
    refuseCredentials = false;
    // What publish_interaction's wait_for_response does: the workflow starts after the commit, so
    // the first looks see the stalled attempt's failure, which must not end the wait.
    const resumed = await publish(scope, {
      user_id: "cy",
      session_id: "s",
      force_extraction: true,
      override_learning_stall: true,
      interaction_data_list: [{ content: "ok" }],
    });
    const deps: CoreDeps = { db: env.db, services: env.services, embedder: env.embedder, now: systemClock };
    assert.deepEqual(await waitForLearning(deps, scope, resumed, 120_000), { outcome: "done" }, JSON.stringify(await learningStatusOf(deps, scope, resumed)));
    assert.equal((await learningStatusOf(deps, scope, stalled)).status, "done");
    assert.equal(await learning.readStall(env.db, scope), undefined);
    // The activity that cleared the stall signalled the workflow of the other user it had paused.
    await waitUntilDone(scope, paused, 60_000);
  } finally {
    refuseCredentials = false;
    await stopWorker(worker, "SIGTERM");
  }
});
