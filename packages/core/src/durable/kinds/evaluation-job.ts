import { evaluationJobs } from "@als/db";
import { runEvaluationJobStep } from "../../evaluation/regenerate.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/** A regenerate job: the evaluations of a window of sessions graded again. */
export const evaluationJobWork = defineDurableWork({
  kind: "evaluationJob",
  noun: "regenerate job",
  reconcile: { lane: "pass" },
  findRunnable: async (deps) => itemsOf(await evaluationJobs.findRunnableJobs(deps.db, deps.now()), "jobId"),
  findWaiting: async (deps) => itemsOf(await evaluationJobs.findRunnableJobs(deps.db, deps.now()), "jobId"),
  releaseLeases: (deps) => evaluationJobs.expireJobLeases(deps.db, deps.now()),
  step: runEvaluationJobStep,
  workflow: {
    type: "regenerateEvaluationsWorkflow",
    activity: "evaluationJobStep",
    idField: "jobId",
    id: ({ id }) => id,
    summary: ({ scope, id }) => `Regenerate evaluations ${id} (${scope.orgId}/${scope.projectId})`,
    scheduling: "start the regenerate workflow",
  },
});
