import { type ComputePool, createComputePool } from "@als/compute";
import { sharedProcessActivity } from "./process-activity.ts";

let shared: ComputePool | undefined;

/** One compute pool per test process, shared by every test file (its threads start on first use). */
export function sharedComputePool(): ComputePool {
  shared ??= createComputePool({ threads: 2, activity: sharedProcessActivity().embeddingPools });
  return shared;
}
