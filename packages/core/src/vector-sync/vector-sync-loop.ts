import type { VectorIndex } from "@als/vector";
import { type BackgroundLoop, startBackgroundLoop } from "../background-loop.ts";
import type { CoreDeps } from "../deps.ts";
import { drainVectorOutbox } from "./sync-vector-index.ts";

/** How soon a change reaches the vector index, at most (plus the push). */
const SYNC_INTERVAL_MS = 1000;
const SYNC_BATCH = 256;

export type VectorSyncLoop = BackgroundLoop;

/**
 * Drains the vector outbox into the index every second, one drain at a time in this process (the
 * drain lock keeps processes apart). The embedded reconciler and the full-mode worker both run it.
 */
export function startVectorSyncLoop(deps: Pick<CoreDeps, "db"> & { vectorIndex: VectorIndex }, onError: (error: unknown) => void): VectorSyncLoop {
  return startBackgroundLoop(() => drainVectorOutbox(deps, SYNC_BATCH), SYNC_INTERVAL_MS, onError);
}
