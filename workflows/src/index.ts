// The worker's workflow bundle entry: every export here is a workflow type (or a query definition).
export { progressQuery, reembedProfilesWorkflow } from "./reembed-profiles.ts";
export type { ReembedProfilesInput, ReembedProfilesProgress } from "./reembed-profiles.ts";
export { learnUserWorkflow, userPublishedSignal } from "./learn-user.ts";
export type { LearnUserInput } from "./learn-user.ts";
export { aggregationOperationWorkflow } from "./aggregation-operation.ts";
export type { AggregationOperationInput } from "./aggregation-operation.ts";
export { generationRunWorkflow } from "./generation-run.ts";
export type { GenerationRunInput } from "./generation-run.ts";
