import { aggregation } from "@als/db";
import { runAggregationStep } from "../../aggregation/aggregation-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/** An aggregation operation: user playbooks clustered into agent playbooks. */
export const aggregationWork = defineDurableWork({
  kind: "aggregation",
  noun: "aggregation operation",
  reconcile: { lane: "pass" },
  findRunnable: async (deps) => itemsOf(await aggregation.findRunnableOperations(deps.db, deps.now()), "operationId"),
  findWaiting: async (deps) => itemsOf(await aggregation.findRunnableOperations(deps.db, deps.now()), "operationId"),
  releaseLeases: (deps) => aggregation.expireOperationLeases(deps.db, deps.now()),
  step: runAggregationStep,
  workflow: {
    type: "aggregationOperationWorkflow",
    activity: "aggregationStep",
    idField: "operationId",
    id: ({ id }) => id,
    summary: ({ scope }) => `Aggregate user playbooks into agent playbooks (${scope.orgId}/${scope.projectId})`,
    scheduling: "start the aggregation workflow",
  },
});
