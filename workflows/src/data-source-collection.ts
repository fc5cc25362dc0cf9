import { condition, continueAsNew, defineSignal, proxyActivities, setCurrentDetails, setHandler } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";

export interface DataSourceCollectionInput {
  orgId: string;
  projectId: string;
  streamId: string;
}

/** Something changed for the collection (activation, resume, poll_now, a retry, an extension): step now instead of at the timer. */
export const collectionChangedSignal = defineSignal("collectionChanged");

const BUSY_PAUSE_MS = 5_000;
/** Steps (pages) before the workflow continues as new: its history stays small however long the backfill. */
const STEPS_PER_RUN = 500;

const { collectionStep } = proxyActivities<Activities>({
  // One attempt reads and imports one page (100 traces) under the collection's lease; a worker that
  // stops heartbeating (every 5 s) is taken for dead after 15 s and the retry takes the lease over.
  startToCloseTimeout: "10 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "2 seconds", backoffCoefficient: 2, maximumInterval: "1 minute" },
});

/**
 * One activated stream's collection (workflow id collect:<org>:<project>:<stream>): its step runs
 * page after page (backfill, live polls, retries), sleeping on a durable timer until the next poll
 * or a provider's cooldown, or until a signal says there is work. Ends when the collection is
 * paused, stopped or deleted; resuming signals it to start again. The step's progress is the
 * workflow's current details in the Temporal UI.
 */
export async function dataSourceCollectionWorkflow(input: DataSourceCollectionInput): Promise<void> {
  let changed = false;
  setHandler(collectionChangedSignal, () => {
    changed = true;
  });
  for (let step = 0; step < STEPS_PER_RUN; step++) {
    changed = false;
    const outcome = await collectionStep(input);
    if (outcome.progress) setCurrentDetails(outcome.progress);
    if (outcome.next === "done") return;
    if (outcome.next === "again") continue;
    const waitMs = outcome.next === "retry" ? outcome.at * 1000 - Date.now() : BUSY_PAUSE_MS;
    if (waitMs > 0) await condition(() => changed, waitMs);
  }
  await continueAsNew<typeof dataSourceCollectionWorkflow>(input);
}
