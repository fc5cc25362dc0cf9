import { dataSourceCollections } from "@als/db";
import { runCollectionStep } from "../../data-sources/collection/collection-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/**
 * Steps (pages) one reconciler pass runs for a collection before the pass ends and the next goes
 * on: the other kinds of work of the pass are not held up by a long backfill.
 */
const COLLECTION_STEPS_PER_PASS = 20;

/** An activated stream's collection: backfill, live polls and retries, page by page. */
export const collectionWork = defineDurableWork({
  kind: "collection",
  noun: "data-source collection",
  reconcile: { lane: "pass", stepsPerPass: COLLECTION_STEPS_PER_PASS },
  findRunnable: async (deps) => itemsOf(await dataSourceCollections.findRunnableCollections(deps.db, deps.now()), "streamId"),
  // Every active collection has its workflow; a running one is only signalled.
  findWaiting: async (deps) => itemsOf(await dataSourceCollections.findActiveCollections(deps.db), "streamId"),
  releaseLeases: (deps) => dataSourceCollections.expireCollectionLeases(deps.db, deps.now()),
  step: runCollectionStep,
  workflow: {
    type: "dataSourceCollectionWorkflow",
    activity: "collectionStep",
    idField: "streamId",
    // One workflow per activated stream: activation, operations and retries signal it.
    id: ({ scope, id }) => `collect:${scope.orgId}:${scope.projectId}:${id}`,
    signal: "collectionChanged",
    summary: ({ scope, id }) => `Data-source collection of stream ${id} (${scope.orgId}/${scope.projectId})`,
    scheduling: "start or signal the data-source collection workflow",
  },
});
