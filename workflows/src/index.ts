// The worker's workflow bundle entry: every export here is a workflow type (or a query definition).

export type { AggregationOperationInput } from "./aggregation-operation.ts";
export { aggregationOperationWorkflow } from "./aggregation-operation.ts";
export type { DataSourceCollectionInput } from "./data-source-collection.ts";
export { collectionChangedSignal, dataSourceCollectionWorkflow } from "./data-source-collection.ts";
export type { DataSourceSampleInput } from "./data-source-sample.ts";
export { dataSourceSampleWorkflow } from "./data-source-sample.ts";
export type { EvaluateSessionInput } from "./evaluate-session.ts";
export { evaluateSessionWorkflow } from "./evaluate-session.ts";
export type { GenerationRunInput } from "./generation-run.ts";
export { generationRunWorkflow } from "./generation-run.ts";
export type { InferSessionOutcomeInput } from "./infer-session-outcome.ts";
export { inferSessionOutcomeWorkflow } from "./infer-session-outcome.ts";
export type { LearnUserInput } from "./learn-user.ts";
export { learnUserWorkflow, userPublishedSignal } from "./learn-user.ts";
export type { PurgeOperationInput } from "./purge-operation.ts";
export { purgeOperationWorkflow } from "./purge-operation.ts";
export type { ReembedProfilesInput, ReembedProfilesProgress } from "./reembed-profiles.ts";
export { progressQuery, reembedProfilesWorkflow } from "./reembed-profiles.ts";
export type { RegenerateEvaluationsInput } from "./regenerate-evaluations.ts";
export { regenerateEvaluationsWorkflow } from "./regenerate-evaluations.ts";
