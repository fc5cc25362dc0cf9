import { sessionTimers } from "@als/db";
import { runOutcomeInferenceStep } from "../../outcomes/infer-session-outcome.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";
import { SESSION_TIMER_BATCH } from "./session-timer-batch.ts";

/** The outcome inference of a session that used a playbook, once it is quiet or the user replied. */
export const outcomeInferenceWork = defineDurableWork({
  kind: "outcomeInference",
  noun: "outcome inference",
  reconcile: { lane: "sessions", batch: SESSION_TIMER_BATCH },
  findRunnable: async (deps, limit) => itemsOf(await sessionTimers.findDueTimers(deps.db, "outcome_inferences", deps.now(), limit), "sessionId"),
  findWaiting: async (deps) => itemsOf(await sessionTimers.findWaitingTimers(deps.db, "outcome_inferences"), "sessionId"),
  releaseLeases: (deps) => sessionTimers.releaseAllTimerLeases(deps.db, "outcome_inferences"),
  step: runOutcomeInferenceStep,
  workflow: {
    type: "inferSessionOutcomeWorkflow",
    activity: "outcomeInferenceStep",
    idField: "sessionId",
    // One timer per session: a reply made the session due sooner than it sleeps, so later publishes signal it.
    id: ({ scope, id }) => `infer-outcome:${scope.orgId}:${scope.projectId}:${id}`,
    signal: "sessionMoved",
    summary: ({ scope }) => `Infer a session's outcome once it is quiet or replied to (${scope.orgId}/${scope.projectId})`,
    scheduling: "start or wake the outcome inference workflow",
  },
});
