import type { StepOutcome } from "./step-outcome.ts";

/** How long a caller that waits keeps at a run: under the server's default backstop (60 s), so it answers with the run as it stands. */
const WAIT_BUDGET_MS = 50_000;
const BUSY_POLL_MS = 100;

/**
 * Calls a run's step here until the run is done or the wait's budget is spent, for a caller that
 * waits for the result. The orchestrator may take the run up at the same moment; the lease lets
 * only one of them work on it, and the other polls until it is done.
 */
export async function runUntilDone(step: () => Promise<StepOutcome>, now: () => number): Promise<void> {
  const giveUpAt = performance.now() + WAIT_BUDGET_MS;
  while (performance.now() < giveUpAt) {
    const outcome = await step();
    if (outcome.next === "done") return;
    const pauseMs = outcome.next === "retry" ? Math.max(0, outcome.at - now()) * 1000 : BUSY_POLL_MS;
    if (performance.now() + pauseMs > giveUpAt) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}
