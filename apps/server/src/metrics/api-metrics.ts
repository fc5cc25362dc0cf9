import {
  type CoreDeps,
  type ProcessMetrics,
  registerBacklogMetrics,
  registerDataSourceMetrics,
  registerProcessMetrics,
  registerVectorIndexMetrics,
} from "@als/core";
import { Registry } from "prom-client";
import { registerAdmissionMetrics } from "./admission-metrics.ts";
import { type RequestMetrics, registerRequestMetrics } from "./request-metrics.ts";

/** Everything GET /metrics of an API process exposes, on a registry of its own. */
export interface ApiMetrics extends ProcessMetrics {
  registry: Registry;
  requests: RequestMetrics;
}

/**
 * The API process's metrics: the process's own (runtime, database pool, embedding pools, LLM calls),
 * requests by procedure, admission, its vector index, and what is read from the database when
 * scraped (learning lag, durable work, the trace-provider collections).
 */
export function createApiMetrics(deps: Pick<CoreDeps, "db" | "now" | "services" | "vectorIndex">): ApiMetrics {
  const registry = new Registry();
  const processMetrics = registerProcessMetrics(registry, deps.db, deps.services.activity);
  const requests = registerRequestMetrics(registry);
  registerAdmissionMetrics(registry, deps.services);
  registerBacklogMetrics(registry, deps.db, deps.now);
  registerDataSourceMetrics(registry, deps.db);
  registerVectorIndexMetrics(registry, deps.db, deps.vectorIndex);
  return { ...processMetrics, registry, requests };
}
