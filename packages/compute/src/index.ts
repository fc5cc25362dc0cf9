export { adjustedRandIndex } from "./adjusted-rand-index.ts";
export type { ClusterEmbeddingsInput } from "./cluster-embeddings.ts";
export { averageLinkageExact } from "./clustering/average-linkage-exact.mjs";
export type { ComputePool, ComputePoolOptions } from "./create-compute-pool.ts";
export { createComputePool } from "./create-compute-pool.ts";
export type { EmbedTextsInput, EmbedTextsOutput } from "./embed-texts-task.ts";
export { EmbeddingPoolActivity, type EmbeddingPoolState } from "./embedding-pool-activity.ts";
export type { ScorePairsInput, ScorePairsOutput } from "./score-pairs-task.ts";
