import { condition, defineSignal, proxyActivities, setCurrentDetails, setHandler, sleep } from "@temporalio/workflow";
import type { Activities, SessionTimerOutcome } from "./activities.ts";

/** The one session a timer workflow waits for; its id is the session's business id. */
export interface SessionTimerInput {
  orgId: string;
  projectId: string;
  sessionId: string;
}

/** The steps of session timers: a few LLM calls at most; the heartbeat notices a worker that died holding one. */
export const sessionTimerSteps = proxyActivities<Activities>({
  startToCloseTimeout: "15 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 20 },
});

/** Sent when a publish made a session due sooner than its timer sleeps (a reply after a playbook was used). */
export const sessionMovedSignal = defineSignal("sessionMoved");

const BUSY_PAUSE = "5 seconds";

/**
 * The loop of a durable per-session timer: run the step; sleep until the time it names (a publish
 * meanwhile moves it: the step then sleeps again), or until a sessionMoved signal wakes it; end when
 * the step is done. Evaluation and outcome inference both run on it.
 */
export async function runSessionTimer(step: () => Promise<SessionTimerOutcome>, waiting: string): Promise<void> {
  let moved = false;
  setHandler(sessionMovedSignal, () => {
    moved = true;
  });
  for (;;) {
    // Cleared before the step: a signal during it makes the wait below return at once.
    moved = false;
    const outcome = await step();
    if (outcome.next === "done") return;
    if (outcome.next === "busy") {
      setCurrentDetails("Another worker holds the session");
      await sleep(BUSY_PAUSE);
      continue;
    }
    setCurrentDetails(`${waiting} at ${new Date(outcome.until * 1000).toISOString()}`);
    await condition(() => moved, Math.max(1, outcome.until * 1000 - Date.now()));
  }
}
