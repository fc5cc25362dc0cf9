import { type VectorIndex, VectorIndexUnavailableError } from "@als/vector";
import { type BackgroundLoop, startBackgroundLoop } from "../background-loop.ts";
import type { CoreDeps } from "../deps.ts";
import { drainVectorOutbox, prepareVectorIndex } from "./sync-vector-index.ts";

/** How soon a change reaches the vector index, at most (plus the push). */
const SYNC_INTERVAL_MS = 1000;
const SYNC_BATCH = 256;
/** How often the index is prepared again (its collections checked) while every pass succeeds. */
const PREPARE_INTERVAL_MS = 30_000;

export type VectorSyncLoop = BackgroundLoop;

/**
 * Drains the vector outbox into the index every second, one drain at a time in this process (the
 * drain lock keeps processes apart). The embedded reconciler and the full-mode worker both run it.
 * Every `prepareEveryMs`, and at the pass after one that found the index out of reach, it prepares
 * the index again first: a Qdrant back without its storage gets its collections and every row
 * without waiting for a write to fail or a process to start.
 */
export function startVectorSyncLoop(
  deps: Pick<CoreDeps, "db"> & { vectorIndex: VectorIndex },
  onError: (error: unknown) => void,
  prepareEveryMs = PREPARE_INTERVAL_MS,
): VectorSyncLoop {
  let preparedAt = Date.now();
  return startBackgroundLoop(
    async () => {
      try {
        if (Date.now() - preparedAt >= prepareEveryMs) {
          await prepareVectorIndex(deps);
          preparedAt = Date.now();
        }
        await drainVectorOutbox(deps, SYNC_BATCH);
      } catch (error) {
        if (error instanceof VectorIndexUnavailableError) preparedAt = 0;
        throw error;
      }
    },
    SYNC_INTERVAL_MS,
    onError,
  );
}
