import type { VectorIndex } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { drainVectorOutbox } from "./sync-vector-index.ts";

/** How soon a change reaches the vector index, at most (plus the push). */
const SYNC_INTERVAL_MS = 1000;
const SYNC_BATCH = 256;

export interface VectorSyncLoop {
  /** Resolves when no drain is running (tests). */
  idle(): Promise<void>;
  /** Stops the timer; a running drain still finishes (await idle()). */
  stop(): void;
}

/**
 * Drains the vector outbox into the index every second, one drain at a time in this process (the
 * drain lock keeps processes apart). The embedded reconciler and the full-mode worker both run it.
 */
export function startVectorSyncLoop(deps: Pick<CoreDeps, "db"> & { vectorIndex: VectorIndex }, onError: (error: unknown) => void): VectorSyncLoop {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= drainVectorOutbox(deps, SYNC_BATCH)
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, SYNC_INTERVAL_MS);
  timer.unref?.();
  return {
    async idle() {
      while (running) await running;
    },
    stop: () => clearInterval(timer),
  };
}
