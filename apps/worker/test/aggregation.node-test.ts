// Aggregation operations in full mode: each is a Temporal workflow whose id is the operation id, run
// by a worker process. Needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { after, before, test } from "node:test";
import { createEmbedder, type Embedder } from "@als/ai";
import { addUserPlaybooks, getAggregationOperation, startAggregationOperation, systemClock, type CoreDeps } from "@als/core";
import { NewUserPlaybook } from "@als/contract";
import { agentPlaybooks, openDatabase, type Database, type Scope } from "@als/db";
import { startAggregationOperationWorkflow } from "@als/workflows/start-aggregation-operation";
import { Client, Connection } from "@temporalio/client";
import { createFreshDatabase } from "../../../test/support/postgres-database.ts";
import { startFakeLlmServer, type FakeLlmReply, type FakeLlmRequest } from "../../../test/support/llm-server.ts";
import { MODEL_DIR, requiredEnv, spawnWorker, stopWorker } from "./worker-process.ts";

let database: Awaited<ReturnType<typeof createFreshDatabase>>;
let db: Database;
let embedder: Embedder;
let connection: Connection;
let client: Client;
let llm: Awaited<ReturnType<typeof startFakeLlmServer>>;
/** While set, aggregation calls hang until it resolves: an operation caught in the middle. */
let gate: Promise<void> | undefined;
const taskQueue = `aggregation-test-${randomUUID()}`;

before(async () => {
  database = await createFreshDatabase(requiredEnv("TEST_DATABASE_URL"));
  db = await openDatabase({ kind: "postgres", url: database.url });
  embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  connection = await Connection.connect({ address: requiredEnv("TEMPORAL_ADDRESS") });
  client = new Client({ connection });
  llm = await startFakeLlmServer(async (_request: FakeLlmRequest): Promise<FakeLlmReply> => {
    if (gate) await gate;
    return {
      json: {
        restates_approved: false,
        playbook_name: "Share tracking",
        trigger: "The user asks where the parcel is",
        content: "Share the tracking link and the carrier",
        rationale: "Several users asked",
        tags: ["shipping"],
      },
    };
  });
});

after(async () => {
  await llm?.close();
  await connection?.close();
  await embedder?.close();
  await db?.close();
  await database?.drop();
});

test("an operation whose worker is killed mid-run completes exactly once on the next worker", { timeout: 240_000 }, async () => {
  const scope: Scope = { orgId: `org-${randomUUID().slice(0, 8)}`, projectId: "default" };
  const deps: CoreDeps = { db, embedder, now: systemClock, scheduleAggregation: (s, id) => startAggregationOperationWorkflow(client, taskQueue, s, id) };
  await addUserPlaybooks(
    deps,
    scope,
    ["Give the shipping tracking link", "Share the shipping tracking link", "Send the shipping tracking link"].map((content, i) =>
      NewUserPlaybook.parse({ user_id: `u-${i}`, agent_version: "v1", trigger: "The user asks where the parcel is", content }),
    ),
  );
  let release!: () => void;
  gate = new Promise((resolve) => (release = resolve));
  const first = spawnWorker({ databaseUrl: database.url, taskQueue, llmBaseUrl: llm.baseUrl });
  const operation = await startAggregationOperation(deps, scope, { request_id: "killed", agent_version: "v1" });
  while (llm.requests.length === 0) await delay(100);
  await stopWorker(first, "SIGKILL");
  gate = undefined;
  release();

  const second = spawnWorker({ databaseUrl: database.url, taskQueue, llmBaseUrl: llm.baseUrl });
  try {
    for (;;) {
      const receipt = await getAggregationOperation(deps, scope, operation.operation_id);
      if (receipt.status === "succeeded") break;
      assert.notEqual(receipt.status, "failed", `operation failed: ${receipt.error_code}`);
      await delay(250);
    }
    const created = await agentPlaybooks.listAgentPlaybooks(db, scope, { agentVersion: "v1" }, 100);
    assert.equal(created.length, 1, "one agent playbook, not one per attempt");
    assert.ok(llm.requests.length >= 2, "the cluster was summarised again after the kill");
    // The receipt commits inside the step; the workflow completes when the step's activity returns.
    const handle = client.workflow.getHandle(operation.operation_id);
    await handle.result();
    const description = await handle.describe();
    assert.equal(description.type, "aggregationOperationWorkflow");
    assert.equal(description.status.name, "COMPLETED");
  } finally {
    await stopWorker(second, "SIGTERM");
  }
});
