import { sessionTimers } from "@als/db";
import { runEvaluationStep } from "../../evaluation/evaluation-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";
import { SESSION_TIMER_BATCH } from "./session-timer-batch.ts";

/** The grading of a session sampled for evaluation, once it has been quiet for its inactivity delay. */
export const evaluationWork = defineDurableWork({
  kind: "evaluation",
  noun: "session evaluation",
  reconcile: { lane: "sessions", batch: SESSION_TIMER_BATCH },
  findRunnable: async (deps, limit) => itemsOf(await sessionTimers.findDueTimers(deps.db, "evaluation_sessions", deps.now(), limit), "sessionId"),
  // Also those an earlier worker without a provider ended the run of.
  findWaiting: async (deps) => itemsOf(await sessionTimers.findWaitingTimers(deps.db, "evaluation_sessions"), "sessionId"),
  releaseLeases: (deps) => sessionTimers.releaseAllTimerLeases(deps.db, "evaluation_sessions"),
  step: runEvaluationStep,
  workflow: {
    type: "evaluateSessionWorkflow",
    activity: "evaluationStep",
    idField: "sessionId",
    // One timer per session: later publishes find it running.
    id: ({ scope, id }) => `evaluate:${scope.orgId}:${scope.projectId}:${id}`,
    summary: ({ scope }) => `Evaluate a session after its inactivity delay (${scope.orgId}/${scope.projectId})`,
    scheduling: "start the session evaluation workflow",
  },
});
