// The one file of workflow code that names domain types; type imports only (useImportType), erased at build.
import type { AggregationStepOutcome, CollectionStepOutcome, LearningStepOutcome, ReembedProgress, SessionTimerOutcome, StepOutcome } from "@als/core";

export type { CollectionStepOutcome, SessionTimerOutcome, StepOutcome };

export interface ReembedProfilesStepInput {
  orgId: string;
  projectId: string;
  /** The model the workflow re-embeds for; a worker loaded with another model refuses the step. */
  modelId: string;
  batchSize: number;
}

/**
 * The activities workflows may call, implemented by apps/worker. Workflow code imports these types
 * only: activity code runs outside the deterministic sandbox.
 */
export interface LearningStepInput {
  orgId: string;
  projectId: string;
  userId: string;
}

/** A learning step's outcome, and whether this worker registered the search attributes (search-attributes.ts). */
export type LearningStepResult = LearningStepOutcome & { searchAttributes?: boolean };

export interface Activities {
  reembedProfilesStep(input: ReembedProfilesStepInput): Promise<ReembedProgress>;
  learningStep(input: LearningStepInput): Promise<LearningStepResult>;
  aggregationStep(input: { orgId: string; projectId: string; operationId: string }): Promise<AggregationStepOutcome>;
  generationStep(input: { orgId: string; projectId: string; runId: string }): Promise<StepOutcome>;
  purgeStep(input: { orgId: string; projectId: string; purgeId: string }): Promise<StepOutcome>;
  physicalRemovalStep(input: { purgeId: string }): Promise<StepOutcome>;
  evaluationStep(input: { orgId: string; projectId: string; sessionId: string }): Promise<SessionTimerOutcome>;
  outcomeInferenceStep(input: { orgId: string; projectId: string; sessionId: string }): Promise<SessionTimerOutcome>;
  evaluationJobStep(input: { orgId: string; projectId: string; jobId: string }): Promise<StepOutcome>;
  sampleStep(input: { orgId: string; projectId: string; sampleId: string }): Promise<StepOutcome>;
  collectionStep(input: { orgId: string; projectId: string; streamId: string }): Promise<CollectionStepOutcome>;
}
