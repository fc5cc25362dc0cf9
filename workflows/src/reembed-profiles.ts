import { continueAsNew, defineQuery, proxyActivities, setCurrentDetails, setHandler, sleep, upsertMemo, workflowInfo } from "@temporalio/workflow";
import type { Activities } from "./activities.ts";

export interface ReembedProfilesInput {
  orgId: string;
  projectId: string;
  modelId: string;
  /** Rows re-embedded by the earlier runs of this job, carried across continue-as-new. */
  reembeddedBefore?: number;
  /** Steps before the run continues as new; the default keeps a run's history to about a thousand events. */
  stepsPerRun?: number;
}

export interface ReembedProfilesProgress {
  modelId: string;
  /** Rows (profiles, user and agent playbooks) re-embedded by the whole job so far (all runs). */
  reembedded: number;
  /** Rows of the project still carrying another model's vector; null until a step of this run reports. */
  remaining: number | null;
}

export const progressQuery = defineQuery<ReembedProfilesProgress>("progress");

const BATCH_SIZE = 256;
const DEFAULT_STEPS_PER_RUN = 100;

const { reembedProfilesStep } = proxyActivities<Activities>({
  // One step embeds one batch, which takes seconds; the heartbeat notices a worker that died (or shut
  // down) holding it within seconds rather than at the end of the attempt's two minutes.
  startToCloseTimeout: "2 minutes",
  heartbeatTimeout: "15 seconds",
  retry: { initialInterval: "1 second", backoffCoefficient: 2, maximumInterval: "1 minute", maximumAttempts: 10 },
});

/**
 * Re-embeds every profile, user playbook and agent playbook of a project whose vector came from
 * another model than `modelId`, one idempotent batch per activity. The rows are the cursor, so a run
 * resumed after its worker stopped, or a retried step, never re-embeds a row that is already done.
 * Named for the profiles it first covered: the workflow's name is recorded in the histories of jobs
 * that may be running, so it stays.
 */
export async function reembedProfilesWorkflow(input: ReembedProfilesInput): Promise<ReembedProfilesProgress> {
  const progress: ReembedProfilesProgress = { modelId: input.modelId, reembedded: input.reembeddedBefore ?? 0, remaining: null };
  setHandler(progressQuery, () => progress, { description: "Rows re-embedded by the whole job, and still stale" });
  const stepsPerRun = input.stepsPerRun ?? DEFAULT_STEPS_PER_RUN;
  for (let step = 0; step < stepsPerRun && !workflowInfo().continueAsNewSuggested; step++) {
    const result = await reembedProfilesStep({ orgId: input.orgId, projectId: input.projectId, modelId: input.modelId, batchSize: BATCH_SIZE });
    progress.reembedded += result.reembedded;
    progress.remaining = result.remaining;
    publish(progress);
    if (result.remaining === 0) return progress;
    // Nothing stored while rows remain means every row of the batch was edited meanwhile; let the
    // edits settle instead of spinning.
    if (result.reembedded === 0) await sleep("10 seconds");
  }
  return continueAsNew<typeof reembedProfilesWorkflow>({ ...input, reembeddedBefore: progress.reembedded });
}

/** Operators see progress in the Temporal UI: the memo (list and describe) and the current details. */
function publish(progress: ReembedProfilesProgress): void {
  upsertMemo({ reembedded: progress.reembedded, remaining: progress.remaining });
  setCurrentDetails(`Re-embedded **${progress.reembedded}** profiles and playbooks with \`${progress.modelId}\`; **${progress.remaining}** remaining.`);
}
