import { setCurrentDetails, sleep } from "@temporalio/workflow";
import type { StepOutcome } from "./activities.ts";

const BUSY_PAUSE = "5 seconds";

/**
 * Calls the idempotent step of a durable run until the run is done. The step records retries and
 * failures on the run itself (a bounded number of attempts); between attempts the workflow sleeps
 * on a durable timer until a retry is due, or while another worker holds the run.
 */
export async function stepUntilDone(step: () => Promise<StepOutcome>): Promise<void> {
  for (;;) {
    const outcome = await step();
    if (outcome.next === "done") return;
    setCurrentDetails(outcome.next === "retry" ? `Retrying at ${new Date(outcome.at * 1000).toISOString()}` : "Another worker holds the run");
    await sleep(outcome.next === "retry" ? Math.max(0, outcome.at * 1000 - Date.now()) : BUSY_PAUSE);
  }
}
