import { runSessionTimer, type SessionTimerInput, sessionTimerSteps } from "./session-timer.ts";

export type InferSessionOutcomeInput = SessionTimerInput;

/**
 * The durable timer of one session's outcome inference; its id is `infer-outcome:<org>:<project>:<session>`.
 * It sleeps until the session has been quiet for about ten minutes, or until a publish with the
 * user's reply after a playbook was used signals it (sessionMoved), then the step infers the
 * outcome. A session published to after it was inferred starts a new run (the inference is
 * refreshed). Without a provider the run ends and the session waits in the database; a worker
 * starting up (with one) starts it again.
 */
export function inferSessionOutcomeWorkflow(input: InferSessionOutcomeInput): Promise<void> {
  return runSessionTimer(() => sessionTimerSteps.outcomeInferenceStep(input), "Inferring the outcome, once the session is quiet or replied to,");
}
