import type { Llm } from "@als/ai";
import type { Database } from "@als/db";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { memoryMappingLimit, memoryMappings } from "./memory-mappings.ts";
import { meteredLlm, registerLlmCallMetrics } from "./metered-llm.ts";
import type { ProcessActivity } from "./process-activity.ts";

/** The metrics every process of the service exposes, registered on a registry of its own. */
export interface ProcessMetrics {
  /** `llm`, its calls counted (tokens, cost, outcome) by stage. */
  meterLlm(llm: Llm): Llm;
  /** Stops listening to the embedding pools (a registry built in a test is dropped afterwards). */
  close(): void;
}

/** Texts per embedding task: one query alone, queries run together, documents batched by length. */
const BATCH_TEXT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

/**
 * Registers on `registry` what every process has: the runtime's own metrics (CPU, memory, event loop,
 * handles), the database pool (PostgreSQL: connections in use, calls waiting for one, failures by
 * reason), the embedding pools (threads, tasks running and queued, texts per task) and the LLM calls
 * (see meteredLlm), and the process's memory mappings against the kernel's limit. Pool figures are
 * read from the pools when scraped; nothing is sampled in between. The runtime and the embedding
 * pools are the process's (`activity`), the database pool `db`'s.
 */
export function registerProcessMetrics(registry: Registry, db: Database, activity: ProcessActivity): ProcessMetrics {
  const runtime = activity.runtime();
  for (const { name } of runtime.getMetricsAsArray()) registry.registerMetric(runtime.getSingleMetric(name)!);
  const pool = db.pool;
  if (pool) {
    new Gauge({ name: "als_db_pool_max_connections", help: "Connections the database pool opens at most.", registers: [registry] }).set(pool.max);
    new Gauge({
      name: "als_db_pool_in_use",
      help: "Statements and transactions holding a pooled database connection.",
      registers: [registry],
      collect() {
        this.set(pool.inUse());
      },
    });
    new Gauge({
      name: "als_db_pool_waiting",
      help: "Statements and transactions waiting for a pooled database connection.",
      registers: [registry],
      collect() {
        this.set(pool.waiting());
      },
    });
    new Counter({
      name: "als_db_failures_total",
      help: "Database calls that failed because the storage could not serve, by reason (503 storage_unavailable).",
      labelNames: ["reason"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, count] of Object.entries(pool.failures)) this.inc({ reason }, count);
      },
    });
  }
  for (const [field, help] of [
    ["threads", "Threads of the embedding pools."],
    ["running", "Embedding tasks running in a pool thread."],
    ["queued", "Embedding tasks waiting for a pool thread."],
  ] as const) {
    new Gauge({
      name: `als_embedding_pool_${field}`,
      help,
      registers: [registry],
      collect() {
        this.set(activity.embeddingPools.state()[field]);
      },
    });
  }
  const batches = new Histogram({
    name: "als_embedding_batch_texts",
    help: "Texts per embedding task run by a pool thread.",
    buckets: BATCH_TEXT_BUCKETS,
    registers: [registry],
  });
  const stopListening = activity.embeddingPools.onBatch((texts) => batches.observe(texts));
  new Gauge({
    name: "als_process_memory_mappings",
    help: "Memory mappings the process holds (Linux); at vm.max_map_count allocation fails (docs/operations.md).",
    registers: [registry],
    collect() {
      const count = memoryMappings();
      if (count !== undefined) this.set(count);
    },
  });
  const limit = memoryMappingLimit();
  if (limit !== undefined)
    new Gauge({
      name: "als_process_memory_mappings_limit",
      help: "The kernel's limit of memory mappings per process (vm.max_map_count).",
      registers: [registry],
    }).set(limit);
  const llmCalls = registerLlmCallMetrics(registry);
  return {
    meterLlm: (llm) => meteredLlm(llm, llmCalls),
    close: stopListening,
  };
}
