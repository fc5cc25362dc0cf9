import {
  type CoreDeps,
  reembedStaleRowsStep,
  removeErasedBytes,
  runAggregationStep,
  runCollectionStep,
  runEvaluationJobStep,
  runEvaluationStep,
  runGenerationStep,
  runLearningStep,
  runOutcomeInferenceStep,
  runPurgeStep,
  runSampleStep,
  type StepOutcome,
} from "@als/core";
import type { Activities } from "@als/workflows/activities";
import { collectionWorkflowId, evaluateSessionWorkflowId, inferSessionOutcomeWorkflowId, learnUserWorkflowId } from "@als/workflows/workflow-ids";
import { ApplicationFailure, Context } from "@temporalio/activity";

const HEARTBEAT_MS = 5_000;

/**
 * The activities of this worker process: thin calls of domain steps over deps composed once.
 * `searchAttributes`: the worker registered the learning workflows' search attributes.
 */
export function createActivities(deps: CoreDeps, options: { searchAttributes: boolean }): Activities {
  return {
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

    // These steps heartbeat while the LLM works, so a worker that dies mid-step is noticed in seconds.
    // Their lease token is their workflow id: a retry of the step (on any worker) takes the lease
    // over at once, and the step's own compare-and-set still lets only one attempt commit.
    learningStep: async ({ orgId, projectId, userId }) => ({
      ...(await withHeartbeat(() => runLearningStep(deps, { orgId, projectId }, userId, learnUserWorkflowId({ orgId, projectId, userId })))),
      searchAttributes: options.searchAttributes,
    }),

    aggregationStep: ({ orgId, projectId, operationId }) =>
      withHeartbeat(() => logged("aggregation step", operationId, runAggregationStep(deps, { orgId, projectId }, operationId, operationId))),

    // A generation run is long: when the worker shuts down (or Temporal gave up on this attempt), the
    // activity is cancelled, and the step stops at its next commit and puts the run back in the queue.
    generationStep: ({ orgId, projectId, runId }) =>
      withHeartbeat(() => logged("generation step", runId, runGenerationStep(deps, { orgId, projectId }, runId, runId, Context.current().cancellationSignal))),

    // An erasure commits step by step; a cancelled attempt stops at its next step and leaves the rest to the next.
    purgeStep: ({ orgId, projectId, purgeId }) =>
      withHeartbeat(() => logged("purge step", purgeId, runPurgeStep(deps, { orgId, projectId }, purgeId, purgeId, Context.current().cancellationSignal))),

    // The pass covers every erasure waiting; its lease token is this erasure's workflow id, so a retry takes the pass over.
    physicalRemovalStep: ({ purgeId }) => withHeartbeat(() => logged("physical removal step", purgeId, removeErasedBytes(deps, purgeId, purgeId))),

    // The session's lease token is its workflow id, as for learning: a retried attempt takes it over.
    evaluationStep: ({ orgId, projectId, sessionId }) =>
      withHeartbeat(() => runEvaluationStep(deps, { orgId, projectId }, sessionId, evaluateSessionWorkflowId({ orgId, projectId, sessionId }))),

    outcomeInferenceStep: ({ orgId, projectId, sessionId }) =>
      withHeartbeat(() => runOutcomeInferenceStep(deps, { orgId, projectId }, sessionId, inferSessionOutcomeWorkflowId({ orgId, projectId, sessionId }))),

    evaluationJobStep: ({ orgId, projectId, jobId }) =>
      withHeartbeat(() => logged("regenerate step", jobId, runEvaluationJobStep(deps, { orgId, projectId }, jobId, jobId))),

    // A sample's provider reads are bounded; its lease token is its workflow id, so a retry takes it over.
    sampleStep: ({ orgId, projectId, sampleId }) =>
      withHeartbeat(() => logged("sample step", sampleId, runSampleStep(deps, { orgId, projectId }, sampleId, sampleId))),

    // One page of a collection; its lease token is its workflow id, so a retry on another worker takes the lease over.
    collectionStep: async ({ orgId, projectId, streamId }) => {
      const outcome = await withHeartbeat(() => runCollectionStep(deps, { orgId, projectId }, streamId, collectionWorkflowId({ orgId, projectId, streamId })));
      if (outcome.unexpected) Context.current().log.error("collection step failed unexpectedly", { streamId, error: outcome.unexpected });
      return outcome;
    },
  };
}

/** A run keeps a safe error code only; the operator's log gets what went wrong. */
async function logged(step: string, id: string, attempt: Promise<StepOutcome>): Promise<StepOutcome> {
  const outcome = await attempt;
  if (outcome.unexpected) Context.current().log.error(`${step} failed unexpectedly`, { id, error: outcome.unexpected });
  return outcome;
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
