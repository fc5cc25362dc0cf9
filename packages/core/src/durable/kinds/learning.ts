import { learning } from "@als/db";
import { runLearningStep } from "../../learning/learning-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/** Learning from a user's interactions, window by window; scheduled on every move of the user's stream. */
export const learningWork = defineDurableWork({
  kind: "learning",
  noun: "learning of user",
  reconcile: { lane: "users" },
  findWaiting: async (deps) => itemsOf(await learning.findUsersWithPendingLearning(deps.db), "userId"),
  // Its window is taken up again from the start.
  releaseLeases: (deps) => learning.releaseAllUserLeases(deps.db),
  step: runLearningStep,
  workflow: {
    type: "learnUserWorkflow",
    activity: "learningStep",
    idField: "userId",
    // One run per user: every publish of the user signals it.
    id: ({ scope, id }) => `learn:${scope.orgId}:${scope.projectId}:${id}`,
    signal: "userPublished",
    summary: ({ scope, id }) => `Learn from the interactions of ${id} (${scope.orgId}/${scope.projectId})`,
    scheduling: "signal the learning workflow",
  },
});
