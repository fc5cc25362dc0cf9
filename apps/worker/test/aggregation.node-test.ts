// Aggregation operations in full mode: each is a Temporal workflow whose id is the operation id, run
// by a worker process. Needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { getAggregationOperation, startAggregationOperation, } from "@als/core";
import { agentPlaybooks, } from "@als/db";
import type { FakeLlmReply } from "@als/test-support/llm-server.ts";
import { openFullModeEnvironment, SHIPPING_AGGREGATE, shippingPlaybooksProject, spawnWorker, stopWorker } from "./worker-process.ts";

let env: Awaited<ReturnType<typeof openFullModeEnvironment>>;
/** While set, aggregation calls hang until it resolves: an operation caught in the middle. */
let gate: Promise<void> | undefined;
const taskQueue = `aggregation-test-${randomUUID()}`;

before(async () => {
  env = await openFullModeEnvironment(async (): Promise<FakeLlmReply> => {
    if (gate) await gate;
    return { json: SHIPPING_AGGREGATE };
  });
});

after(() => env?.close());

test("an operation whose worker is killed mid-run completes exactly once on the next worker", { timeout: 240_000 }, async () => {
  const { scope, deps } = await shippingPlaybooksProject(env, taskQueue);
  const { db, client, llm, database } = env;
  let release!: () => void;
  gate = new Promise((resolve) => {
    release = resolve;
  });
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
