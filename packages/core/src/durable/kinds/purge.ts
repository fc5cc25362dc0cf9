import { physicalRemoval, purgeOperations } from "@als/db";
import { removeErasedBytes } from "../../governance/physical-removal-step.ts";
import { runPurgeStep } from "../../governance/purge-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/** A purge operation (the erasure of a user), then the physical removal pass that covers it. */
export const purgeWork = defineDurableWork({
  kind: "purge",
  noun: "purge operation",
  reconcile: { lane: "pass" },
  findRunnable: async (deps) => itemsOf(await purgeOperations.findRunnablePurges(deps.db, deps.now()), "purgeId"),
  // An erasure whose rows went before its physical removal ran waits too.
  findWaiting: async (deps) =>
    itemsOf([...(await purgeOperations.findRunnablePurges(deps.db, deps.now())), ...(await physicalRemoval.findAwaitingPhysicalRemoval(deps.db))], "purgeId"),
  releaseLeases: async (deps) => {
    await purgeOperations.expirePurgeLeases(deps.db, deps.now());
    await physicalRemoval.expirePhysicalRemovalLease(deps.db);
  },
  step: runPurgeStep,
  // The pass covers every erasure waiting; in full mode its lease token is the erasure's workflow id, so a retry takes the pass over.
  followUp: { activity: "physicalRemovalStep", step: removeErasedBytes },
  workflow: {
    type: "purgeOperationWorkflow",
    activity: "purgeStep",
    idField: "purgeId",
    id: ({ id }) => id,
    // The user id stays out of Temporal's history and UI: the purge id says which erasure it is.
    summary: ({ scope, id }) => `Erasure ${id} (${scope.orgId}/${scope.projectId})`,
    scheduling: "start the purge operation workflow",
  },
});
