/**
 * Preloaded into a server a bench starts (`bun --preload bench/lib/memory-probe.ts
 * apps/server/src/main.ts`): on SIGUSR2 it runs a full garbage collection and writes the main
 * thread's heap statistics and memory usage, as one JSON line, to the file MEMORY_PROBE_FILE names.
 * A bench-only hook: the service itself exposes memory through GET /metrics and forces nothing.
 */

import { heapStats } from "bun:jsc";
import { appendFileSync } from "node:fs";

const file = process.env.MEMORY_PROBE_FILE;
if (file) {
  process.on("SIGUSR2", () => {
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
  });
}
