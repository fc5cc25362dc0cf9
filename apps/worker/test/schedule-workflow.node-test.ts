// Scheduling each kind of durable work through Temporal, as its catalogue entry says: the workflow
// type, id and input every worker and every running history already know, and what a second
// schedule of the same item does. On a task queue no worker polls, so the workflows only wait.
// Needs TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { type DurableKind, durableWork } from "@als/core";
import type { Scope } from "@als/db";
import { scheduleWorkflow } from "@als/workflows/schedule-through-temporal";
import { Client, Connection } from "@temporalio/client";
import { defaultPayloadConverter } from "@temporalio/common";

let connection: Connection;
let client: Client;
const taskQueue = `schedule-test-${randomUUID()}`;
const scope: Scope = { orgId: `org-${randomUUID().slice(0, 8)}`, projectId: "default" };

before(async () => {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error("TEMPORAL_ADDRESS is not set (scripts/test starts the Temporal dev server and sets it)");
  connection = await Connection.connect({ address });
  client = new Client({ connection });
});

/** The workflows this file started: no worker will ever run them. */
const scheduled: string[] = [];

after(async () => {
  await Promise.all(scheduled.map((workflowId) => client.workflow.getHandle(workflowId).terminate("the test ended")));
  await connection?.close();
});

/** Per kind: the workflow it starts, its id for item `id`, its input's id field, and whether a second schedule signals the running workflow. */
const EXPECTED: Record<DurableKind, { type: string; id: (id: string) => string; idField: string; signal?: string }> = {
  learning: { type: "learnUserWorkflow", id: (id) => `learn:${scope.orgId}:${scope.projectId}:${id}`, idField: "userId", signal: "userPublished" },
  aggregation: { type: "aggregationOperationWorkflow", id: (id) => id, idField: "operationId" },
  generationRun: { type: "generationRunWorkflow", id: (id) => id, idField: "runId" },
  purge: { type: "purgeOperationWorkflow", id: (id) => id, idField: "purgeId" },
  evaluation: { type: "evaluateSessionWorkflow", id: (id) => `evaluate:${scope.orgId}:${scope.projectId}:${id}`, idField: "sessionId" },
  outcomeInference: {
    type: "inferSessionOutcomeWorkflow",
    id: (id) => `infer-outcome:${scope.orgId}:${scope.projectId}:${id}`,
    idField: "sessionId",
    signal: "sessionMoved",
  },
  evaluationJob: { type: "regenerateEvaluationsWorkflow", id: (id) => id, idField: "jobId" },
  sample: { type: "dataSourceSampleWorkflow", id: (id) => id, idField: "sampleId" },
  collection: {
    type: "dataSourceCollectionWorkflow",
    id: (id) => `collect:${scope.orgId}:${scope.projectId}:${id}`,
    idField: "streamId",
    signal: "collectionChanged",
  },
};

for (const [kind, expected] of Object.entries(EXPECTED) as [DurableKind, (typeof EXPECTED)[DurableKind]][]) {
  test(`${kind}: scheduled twice, one workflow of its type and id with the item as input; ${expected.signal ? "the second schedule signals it" : "the second leaves it alone"}`, async () => {
    const id = randomUUID();
    await scheduleWorkflow(client, taskQueue, durableWork(kind), scope, id);
    scheduled.push(expected.id(id));
    const first = await client.workflow.getHandle(expected.id(id)).describe();
    await scheduleWorkflow(client, taskQueue, durableWork(kind), scope, id);
    const handle = client.workflow.getHandle(expected.id(id));
    const second = await handle.describe();
    assert.equal(first.type, expected.type);
    assert.equal(second.runId, first.runId);
    assert.equal(second.status.name, "RUNNING");
    const { events } = await handle.fetchHistory();
    const started = events?.[0]?.workflowExecutionStartedEventAttributes;
    assert.deepEqual(
      started?.input?.payloads?.map((payload) => defaultPayloadConverter.fromPayload(payload)),
      [{ orgId: scope.orgId, projectId: scope.projectId, [expected.idField]: id }],
    );
    const signals = events?.flatMap((event) =>
      event.workflowExecutionSignaledEventAttributes ? [event.workflowExecutionSignaledEventAttributes.signalName] : [],
    );
    assert.deepEqual(signals, expected.signal ? [expected.signal, expected.signal] : []);
  });
}
