import { generationRuns } from "@als/db";
import { runGenerationStep } from "../../generation/generation-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/** A generation run (a rerun or manual generation of profiles or user playbooks, an applied review). */
export const generationRunWork = defineDurableWork({
  kind: "generationRun",
  noun: "generation run",
  // A rerun of every user can take long, and learning should not wait for it.
  reconcile: { lane: "own" },
  findRunnable: async (deps) => itemsOf(await generationRuns.findRunnableRuns(deps.db, deps.now()), "runId"),
  findWaiting: async (deps) => itemsOf(await generationRuns.findRunnableRuns(deps.db, deps.now()), "runId"),
  releaseLeases: (deps) => generationRuns.expireRunLeases(deps.db, deps.now()),
  step: runGenerationStep,
  workflow: {
    type: "generationRunWorkflow",
    activity: "generationStep",
    idField: "runId",
    id: ({ id }) => id,
    summary: ({ scope, id }) => `Generation run ${id} (${scope.orgId}/${scope.projectId})`,
    scheduling: "start the generation run workflow",
  },
});
