import { runSessionTimer, type SessionTimerInput, sessionTimerSteps } from "./session-timer.ts";

export type EvaluateSessionInput = SessionTimerInput;

/**
 * The durable timer of one sampled session's evaluation; its id is `evaluate:<org>:<project>:<session>`.
 * It sleeps until the session has been quiet for the inactivity delay (the step says until when: a
 * publish meanwhile moves it), then the step grades the session. A session published to after it was
 * graded starts a new run. Without a provider the run ends and the session waits in the database; a
 * worker starting up (with one) starts it again.
 */
export function evaluateSessionWorkflow(input: EvaluateSessionInput): Promise<void> {
  return runSessionTimer(() => sessionTimerSteps.evaluationStep(input), "Grading, once the session has been quiet long enough,");
}
