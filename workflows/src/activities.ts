// The one file of workflow code that names domain types; type imports only (useImportType), erased at build.
import type { CollectionStepOutcome, DurableActivities, LearningStepOutcome, ReembedProgress, SessionTimerOutcome, StepOutcome } from "@als/core";

export type { CollectionStepOutcome, SessionTimerOutcome, StepOutcome };

export interface ReembedProfilesStepInput {
  orgId: string;
  projectId: string;
  /** The model the workflow re-embeds for; a worker loaded with another model refuses the step. */
  modelId: string;
  batchSize: number;
}

/** A learning step's outcome, and whether this worker registered the search attributes (search-attributes.ts). */
export type LearningStepResult = LearningStepOutcome & { searchAttributes?: boolean };

/**
 * The activities workflows may call, implemented by apps/worker: the step of each kind of durable
 * work (DurableActivities, from the catalogue), the physical removal that follows an erasure, and
 * re-embedding. Workflow code imports these types only: activity code runs outside the
 * deterministic sandbox.
 */
export interface Activities extends Omit<DurableActivities, "learningStep"> {
  reembedProfilesStep(input: ReembedProfilesStepInput): Promise<ReembedProgress>;
  learningStep(input: { orgId: string; projectId: string; userId: string }): Promise<LearningStepResult>;
  physicalRemovalStep(input: { purgeId: string }): Promise<StepOutcome>;
}
