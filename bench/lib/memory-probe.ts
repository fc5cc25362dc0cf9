/**
 * Preloaded into a server a bench starts (`bun --preload bench/lib/memory-probe.ts
 * apps/server/src/main.ts`): on SIGUSR2 the service's thread runs a full garbage collection and
 * writes its heap statistics and the process's memory usage, as one JSON line, to the file
 * MEMORY_PROBE_FILE names. The signal reaches the process's main thread, which asks the service's
 * thread over a BroadcastChannel; a preload runs in the main thread only, so this module also
 * preloads itself into the worker threads the process starts. A bench-only hook: the service
 * itself exposes memory through GET /metrics and forces nothing.
 */

import { heapStats } from "bun:jsc";
import { appendFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  const channel = new BroadcastChannel("als-memory-probe");
  if (isMainThread) {
    const Base = globalThis.Worker;
    globalThis.Worker = class extends Base {
      constructor(url: string | URL, options: WorkerOptions = {}) {
        super(url, { ...options, preload: [import.meta.path] } as WorkerOptions);
      }
    } as typeof Worker;
    process.on("SIGUSR2", () => channel.postMessage("probe"));
  } else {
    // Only the service's thread answers: the embedding threads are Piscina's, started through
    // node:worker_threads, which this does not preload.
    channel.onmessage = () => {
      Bun.gc(true);
      const heap = heapStats();
      const usage = process.memoryUsage();
      appendFileSync(
        file,
        `${JSON.stringify({
          heapSize: heap.heapSize,
          heapCapacity: heap.heapCapacity,
          extraMemorySize: heap.extraMemorySize,
          objectCount: heap.objectCount,
          rss: usage.rss,
          external: usage.external,
          arrayBuffers: usage.arrayBuffers,
        })}\n`,
      );
    };
  }
}
