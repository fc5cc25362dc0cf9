import {
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from "@temporalio/workflow";
import type { Activities, LearningStepResult } from "./activities.ts";
import { PENDING_TOOL_CALLS_ATTRIBUTE, USER_ID_ATTRIBUTE } from "./search-attributes.ts";

export interface LearnUserInput {
  orgId: string;
  projectId: string;
  userId: string;
  /** Steps before the run continues as new, to keep its history short. */
  stepsPerRun?: number;
}

/** Sent on every publish (signal-with-start): the user's interaction stream moved. */
export const userPublishedSignal = defineSignal("userPublished");

const DEFAULT_STEPS_PER_RUN = 200;
/** With nothing due and nothing scheduled, the run waits this long for a publish, then ends. */
const IDLE_LINGER = "10 minutes";
const BUSY_PAUSE = "5 seconds";

const { learningStep } = proxyActivities<Activities>({
  // A window is one or two LLM calls; the heartbeat notices a worker that died holding one.
  startToCloseTimeout: "15 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 20 },
});

/**
 * Learns from one user's interactions, one window at a time: its id is `learn:<org>:<project>:<user>`,
 * so publishes of that user signal this one run instead of starting others. Each step is the
 * idempotent learning step over the user's cursors; between steps the run sleeps on a durable timer
 * until the next window is due (a short window's inactivity deadline, a retry's backoff) or a
 * publish wakes it.
 */
export async function learnUserWorkflow(input: LearnUserInput): Promise<void> {
  let published = true;
  setHandler(userPublishedSignal, () => {
    published = true;
  });
  const stepsPerRun = input.stepsPerRun ?? DEFAULT_STEPS_PER_RUN;
  for (let step = 0; step < stepsPerRun && !workflowInfo().continueAsNewSuggested; step++) {
    published = false;
    const outcome = await learningStep({ orgId: input.orgId, projectId: input.projectId, userId: input.userId });
    publish(input.userId, outcome);
    if (outcome.next === "again") continue;
    if (outcome.next === "busy") {
      await sleep(BUSY_PAUSE);
      continue;
    }
    const wait = outcome.next === "sleep" ? Math.max(0, outcome.until * 1000 - Date.now()) : IDLE_LINGER;
    const woken = await condition(() => published, wait);
    // Signals are delivered before timers in an activation, so a publish racing the end is seen here.
    if (!woken && !published && outcome.next === "idle") return;
  }
  await continueAsNew<typeof learnUserWorkflow>(input);
}

/**
 * Operators see each step in the Temporal UI: the current details, and (where the worker registered
 * them) the search attributes of the user and of the questions the run waits on.
 */
function publish(userId: string, outcome: LearningStepResult): void {
  const waitingOn = outcome.next === "sleep" ? (outcome.waitingOn ?? []) : [];
  setCurrentDetails(
    `Last step: **${outcome.next}**${outcome.next === "sleep" ? ` until ${new Date(outcome.until * 1000).toISOString()}` : ""}` +
      (waitingOn.length > 0 ? `, waiting for a person to answer pending tool call(s) ${waitingOn.join(", ")}` : ""),
  );
  if (outcome.searchAttributes) {
    upsertSearchAttributes([
      { key: USER_ID_ATTRIBUTE, value: userId },
      { key: PENDING_TOOL_CALLS_ATTRIBUTE, value: waitingOn.length > 0 ? waitingOn : null },
    ]);
  }
}
