export { createComputePool } from "./create-compute-pool.ts";
export type { ComputePool, ComputePoolOptions } from "./create-compute-pool.ts";
export type { EmbedTextsInput, EmbedTextsOutput } from "./embed-texts-task.ts";
