import { type CoreDeps, type ProcessMetrics, registerBacklogMetrics, registerProcessMetrics } from "@als/core";
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
 * requests by procedure, admission, and the backlog read from the database when scraped (learning
 * lag, durable work).
 */
export function createApiMetrics(deps: Pick<CoreDeps, "db" | "now" | "services">): ApiMetrics {
  const registry = new Registry();
  const processMetrics = registerProcessMetrics(registry, deps.db);
  const requests = registerRequestMetrics(registry);
  registerAdmissionMetrics(registry, deps.services);
  registerBacklogMetrics(registry, deps.db, deps.now);
  return { ...processMetrics, registry, requests };
}
