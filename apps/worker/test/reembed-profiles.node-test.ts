// Runs under Node, as the worker does in production: `bun run --cwd apps/worker test` (see package.json).
// Needs the services scripts/test starts: TEST_DATABASE_URL (PostgreSQL + pgvector) and TEMPORAL_ADDRESS.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createEmbedder, type Embedder } from "@als/ai";
import { loadSettings, type Settings } from "@als/core";
import { type Database, openDatabase, profiles, type Scope, staleEmbeddings, VectorParam } from "@als/db";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { seedPlaybooksOfRetiredModel, seedProfilesOfRetiredModel } from "@als/test-support/retired-model-rows.ts";
import { progressQuery, type ReembedProfilesProgress, reembedProfilesWorkflow } from "@als/workflows";
import { reembedProfilesWorkflowId } from "@als/workflows/workflow-ids";
import { Client, Connection, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from "@temporalio/client";
import { DefaultLogger, Runtime } from "@temporalio/worker";
import { workflowMetadataQuery } from "@temporalio/workflow";
import { startReembedProfiles } from "../src/start-reembed-profiles.ts";
import { startWorker } from "../src/start-worker.ts";
import { embeddingWriteCounts, recordEmbeddingWrites } from "./stale-profiles.ts";

const MODEL_DIR = fileURLToPath(new URL("../../../.cache/models/e5-small-v2-int8", import.meta.url));

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/test starts the services and sets it)`);
  return value;
}

// Errors only: the refused steps of a test below are logged as warnings by design.
Runtime.install({ logger: new DefaultLogger("ERROR") });
const log = Runtime.instance().logger;

let database: Awaited<ReturnType<typeof createFreshDatabase>>;
let settings: Settings;
let db: Database;
let embedder: Embedder;
let connection: Connection;
let client: Client;

before(async () => {
  database = await createFreshDatabase(requiredEnv("TEST_DATABASE_URL"));
  settings = loadSettings({
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: requiredEnv("TEMPORAL_ADDRESS"),
    // A queue of its own, so no other worker on this dev server takes these tasks.
    TEMPORAL_TASK_QUEUE: `reembed-test-${randomUUID()}`,
    EMBEDDING_MODEL_DIR: MODEL_DIR,
    LOG_LEVEL: "warn",
  });
  db = await openDatabase({ kind: "postgres", url: database.url });
  await recordEmbeddingWrites(db);
  embedder = await createEmbedder(settings.embedding);
  connection = await Connection.connect({ address: requiredEnv("TEMPORAL_ADDRESS") });
  client = new Client({ connection });
});

after(async () => {
  await connection?.close();
  await embedder?.close();
  await db?.close();
  await database?.drop();
});

/**
 * A project of its own per test, registered as an organisation and project (tenant data references
 * its project); workflow ids stay unique across runs against the same dev server.
 */
const newScope = (): Promise<Scope> => registerProject(db, { orgId: `org-${randomUUID().slice(0, 8)}`, projectId: "catalogue" });

test("a worker starting up re-embeds every stale profile and playbook once, and search by meaning works again", { timeout: 120_000 }, async () => {
  const scope = await newScope();
  const modelId = embedder.modelId;
  await seedProfilesOfRetiredModel(db, scope, 600);
  // 30 user playbooks and 30 agent playbooks: the same job covers them, after the profiles.
  await seedPlaybooksOfRetiredModel(db, scope, 30);

  const worker = await startWorker(settings, log);
  try {
    const handle = client.workflow.getHandle<typeof reembedProfilesWorkflow>(reembedProfilesWorkflowId({ ...scope, modelId }));
    const result = await handle.result();
    assert.deepEqual(result, { modelId, reembedded: 660, remaining: 0 });
    assert.equal(await staleEmbeddings.countRowsWithStaleEmbedding(db, scope, modelId), 0);
    assert.deepEqual(await embeddingWriteCounts(db, scope), { 1: 600 });

    // Only vectors of the query's model are compared, so this finds nothing unless the rows were re-embedded.
    const found = await profiles.searchProfiles(
      db,
      scope,
      { userId: "user-1" },
      {
        mode: "vector",
        queryVector: new VectorParam(await embedder.embedQuery("insects honey")),
        embeddingModel: modelId,
        similarityFloor: embedder.defaultThreshold,
        commonLexemes: [],
        topK: 3,
      },
    );
    assert.deepEqual(
      found.map((p) => p.content.split(" (")[0]),
      Array(3).fill("Keeps bees in the garden"),
    );

    // What an operator sees: the query, the memo (list and describe), the current details and summary.
    assert.deepEqual(await handle.query(progressQuery), result);
    const description = await handle.describe();
    assert.deepEqual(description.memo, { reembedded: 660, remaining: 0 });
    assert.equal(await description.staticSummary(), `Re-embed the profiles and playbooks of ${scope.orgId}/${scope.projectId} with ${modelId}`);
    const metadata = await handle.query(workflowMetadataQuery);
    assert.equal(metadata.currentDetails, `Re-embedded **660** profiles and playbooks with \`${modelId}\`; **0** remaining.`);
  } finally {
    worker.shutdown();
    await worker.finished;
  }
});

test("a second start collides, and a job outlives its worker shutting down mid-run", { timeout: 180_000 }, async () => {
  const scope = await newScope();
  const modelId = embedder.modelId;
  const total = 1000;
  await seedProfilesOfRetiredModel(db, scope, total);
  const { taskQueue } = settings.temporal!;
  const job = { ...scope, modelId };
  // Two steps per run, so this four-step job also continues as new once.
  const handle = await client.workflow.start(reembedProfilesWorkflow, {
    taskQueue,
    workflowId: reembedProfilesWorkflowId(job),
    args: [{ ...job, stepsPerRun: 2 }],
  });
  await assert.rejects(startReembedProfiles(client, taskQueue, scope, modelId), WorkflowExecutionAlreadyStartedError);

  // Its start-up scheduling collides with the running job as well, and goes on.
  const first = await startWorker(settings, log);
  const observed = await progressUntil(handle, (progress) => progress.reembedded > 0);
  first.shutdown();
  await first.finished;
  assert.equal((await handle.describe()).status.name, "RUNNING");
  for (const progress of observed) {
    if (progress.remaining !== null) assert.equal(progress.reembedded + progress.remaining, total);
  }

  const second = await startWorker(settings, log);
  try {
    assert.deepEqual(await handle.result(), { modelId, reembedded: total, remaining: 0 });
    assert.equal(await staleEmbeddings.countRowsWithStaleEmbedding(db, scope, modelId), 0);
    assert.deepEqual(await embeddingWriteCounts(db, scope), { 1: total });

    const histories = await historiesOfEveryRun(handle.workflowId, handle.firstExecutionRunId);
    assert.equal(histories.length, 2, "the first run continued as new");
    const failures = histories.flatMap((events) =>
      events.filter((event) => event.activityTaskFailedEventAttributes || event.activityTaskTimedOutEventAttributes),
    );
    assert.deepEqual(failures, []);
  } finally {
    second.shutdown();
    await second.finished;
  }
});

test("a worker of another model refuses a job's steps, leaving them to a worker of that model", { timeout: 60_000 }, async () => {
  const worker = await startWorker(settings, log);
  try {
    // Seeded after start-up, so this worker does not schedule its own job for the project.
    const scope = await newScope();
    await seedProfilesOfRetiredModel(db, scope, 10);
    const handle = await startReembedProfiles(client, settings.temporal!.taskQueue, scope, "next-model");
    const failure = await firstActivityFailure(handle);
    assert.equal(failure.message, `this worker embeds with ${embedder.modelId}, not next-model`);
    assert.equal(failure.applicationFailureInfo?.type, "EmbeddingModelMismatch");
    assert.equal(failure.applicationFailureInfo?.nonRetryable, false);
    assert.deepEqual(await embeddingWriteCounts(db, scope), { 0: 10 });
    await handle.terminate("test over");
  } finally {
    worker.shutdown();
    await worker.finished;
  }
});

/** Waits until the workflow's pending activity has failed an attempt; returns that failure. */
async function firstActivityFailure(handle: WorkflowHandle) {
  for (;;) {
    const failure = (await handle.describe()).raw.pendingActivities?.[0]?.lastFailure;
    if (failure) return failure;
    await delay(100);
  }
}

/** Polls the `progress` query until `done` holds; returns every answer seen. */
async function progressUntil(handle: WorkflowHandle, done: (progress: ReembedProfilesProgress) => boolean) {
  const seen: ReembedProfilesProgress[] = [];
  for (;;) {
    const progress = await handle.query(progressQuery);
    seen.push(progress);
    if (done(progress)) return seen;
    await delay(50);
  }
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle["fetchHistory"]>>["events"]>[number];

/** The events of each run of a workflow, following continue-as-new from its first run. */
async function historiesOfEveryRun(workflowId: string, firstRunId: string) {
  const histories: HistoryEvent[][] = [];
  for (let runId: string | undefined = firstRunId; runId; ) {
    const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    histories.push(events);
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return histories;
}
