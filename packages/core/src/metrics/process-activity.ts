import { EmbeddingPoolActivity } from "@als/compute";
import { collectDefaultMetrics, Registry } from "prom-client";

const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * What a process measures of itself, whatever app it serves: its embedding pools and its runtime.
 * Built once per process by its composition root (createCoreDeps; the tests share one) and handed
 * to the pools it opens and, through ProcessServices, to the metrics of every app it builds.
 */
export class ProcessActivity {
  /** The process's embedding pools, their figures summed when scraped. */
  readonly embeddingPools = new EmbeddingPoolActivity();
  #runtime: Registry | undefined;

  /**
   * The runtime's own metrics (CPU, memory, event loop, handles), collected from the first call on
   * and once however many registries show them: each collection samples the event loop on a timer
   * of its own, and a process building several apps (the tests) would otherwise run one per app.
   * The timer fires every 100 ms rather than prom-client's 10: an idle process spent about 4 ms of
   * CPU a second on it, and a stall long enough to matter still shows in the lag figures.
   */
  runtime(): Registry {
    if (!this.#runtime) {
      this.#runtime = new Registry();
      collectDefaultMetrics({ register: this.#runtime, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    }
    return this.#runtime;
  }
}
