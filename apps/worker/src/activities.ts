import { type CoreDeps, DURABLE_WORK, type DurableActivities, type DurableWork, reembedStaleRowsStep } from "@als/core";
import type { Activities } from "@als/workflows/activities";
import { ApplicationFailure, Context } from "@temporalio/activity";

const HEARTBEAT_MS = 5_000;

/**
 * The activities of this worker process: the step of every kind of the catalogue (and the follow-up
 * steps), each a thin call over deps composed once, and re-embedding.
 * `searchAttributes`: the worker registered the learning workflows' search attributes.
 */
export function createActivities(deps: CoreDeps, options: { searchAttributes: boolean }): Activities {
  const steps = Object.fromEntries(DURABLE_WORK.map((work) => [work.workflow.activity, stepActivity(deps, work)])) as unknown as DurableActivities;
  const followUps = Object.fromEntries(
    DURABLE_WORK.flatMap((work: DurableWork) => (work.followUp ? [[work.followUp.activity, followUpActivity(deps, work, work.followUp)]] : [])),
  ) as unknown as Pick<Activities, "physicalRemovalStep">;
  return {
    ...steps,
    ...followUps,
    learningStep: async (input) => ({ ...(await steps.learningStep(input)), searchAttributes: options.searchAttributes }),

    // Named for the profiles it first covered; it re-embeds every kind now (reembedStaleRowsStep). The
    // name is recorded in the histories of jobs that may be running, so it stays.
    async reembedProfilesStep({ orgId, projectId, modelId, batchSize }) {
      // During a rolling model change, workers of both models poll the same queue; a retry lands the
      // step on a worker of the right model instead of writing vectors of the wrong one.
      if (deps.embedder.modelId !== modelId) {
        throw ApplicationFailure.retryable(`this worker embeds with ${deps.embedder.modelId}, not ${modelId}`, "EmbeddingModelMismatch");
      }
      return withHeartbeat(() => reembedStaleRowsStep(deps, { orgId, projectId }, batchSize));
    },
  };
}

/**
 * The activity of an entry's step. It heartbeats while the step works (an LLM call, a provider's
 * page), so a worker that dies mid-step is noticed in seconds. Its lease token is the workflow id:
 * a retry of the step (on any worker) takes the lease over at once, and the step's own
 * compare-and-set still lets only one attempt commit. When the worker shuts down (or Temporal gave
 * up on this attempt) the activity is cancelled, and a long step stops at its next commit.
 */
function stepActivity(deps: CoreDeps, work: DurableWork) {
  return async (input: Record<string, string>) => {
    const scope = { orgId: input.orgId!, projectId: input.projectId! };
    const id = input[work.workflow.idField]!;
    const outcome = await withHeartbeat(() => work.step(deps, scope, id, work.workflow.id({ scope, id }), Context.current().cancellationSignal));
    // A run keeps a safe error code only; the operator's log gets what went wrong.
    if ("unexpected" in outcome && outcome.unexpected) Context.current().log.error(`${work.noun} step failed unexpectedly`, { id, error: outcome.unexpected });
    return outcome;
  };
}

/** The activity of an entry's follow-up, run by the item's workflow; its lease token is the item's id, so a retry takes it over. */
function followUpActivity(deps: CoreDeps, work: DurableWork, followUp: NonNullable<DurableWork["followUp"]>) {
  return async (input: Record<string, string>) => {
    const id = input[work.workflow.idField]!;
    const outcome = await withHeartbeat(() => followUp.step(deps, id, id));
    if (outcome.unexpected) Context.current().log.error(`${followUp.activity} failed unexpectedly`, { id, error: outcome.unexpected });
    return outcome;
  };
}

async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
  }
}
