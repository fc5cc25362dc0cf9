// A worker stopped (SIGTERM) while it is still scheduling the work that waited for it: a stop, not a
// failed start. Needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { after, before, test } from "node:test";
import { PublishInteractionRequest } from "@als/contract";
import { type CoreDeps, publishInteractions, systemClock } from "@als/core";
import { registerProject } from "@als/test-support/register-project.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { openFullModeEnvironment, spawnWorker } from "./worker-process.ts";

/** Users whose learning waits for a worker: scheduling them all takes the worker seconds, the window the stop lands in. */
const WAITING_USERS = 1_500;
let env: Awaited<ReturnType<typeof openFullModeEnvironment>>;

before(async () => {
  env = await openFullModeEnvironment(async (request) => scriptedReply(request));
});

after(() => env?.close());

test("a worker stopped while it schedules the waiting work exits cleanly, without 'cannot start'", { timeout: 240_000 }, async () => {
  const scope = await registerProject(env.db, { orgId: `org-${randomUUID().slice(0, 8)}`, projectId: "default" });
  // Published with no orchestrator, as by an API process whose signals never reached Temporal.
  const deps: CoreDeps = { db: env.db, services: env.services, embedder: env.embedder, now: systemClock };
  for (let user = 0; user < WAITING_USERS; user++) {
    const body = { user_id: `u-${user}`, session_id: "s", interaction_data_list: [{ role: "User", content: `Note ${user}` }] };
    await publishInteractions(deps, scope, PublishInteractionRequest.parse(body));
  }
  const worker = spawnWorker({
    databaseUrl: env.database.url,
    taskQueue: `stop-during-start-${randomUUID()}`,
    llmBaseUrl: env.llm.baseUrl,
    env: { LOG_LEVEL: "info" },
    piped: true,
  });
  let output = "";
  const scheduling = new Promise<void>((resolve) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      // Logged just before the waiting work is scheduled.
      if (output.includes("re-embedding scheduled")) resolve();
    };
    worker.stdout?.on("data", read);
    worker.stderr?.on("data", read);
  });
  const exited = once(worker, "exit");
  await scheduling;
  worker.kill("SIGTERM");
  const [code] = await exited;
  assert.doesNotMatch(output, /cannot start/);
  assert.match(output, /re-embedding scheduled/);
  assert.doesNotMatch(output, /durable work scheduled.*"kind":"learning"/, "the stop came before the learning backlog was scheduled");
  assert.equal(code, 0);
});
