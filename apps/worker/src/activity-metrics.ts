import type { ActivityInterceptorsFactory } from "@temporalio/worker";
import { Counter, Histogram, type Registry } from "prom-client";

/** Seconds: a database step (milliseconds) to a window learned through a slow LLM (minutes). */
const DURATION_BUCKETS_S = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

/**
 * The worker's activity counters as an interceptor: executions by activity and outcome, retries
 * (an attempt after the first) and durations. `activities` are the names the worker registers;
 * any other is counted as `other`, so a label takes no value the code did not choose.
 */
export function activityMetrics(registry: Registry, activities: ReadonlySet<string>): ActivityInterceptorsFactory {
  const executions = new Counter({
    name: "als_activity_executions_total",
    help: "Activity attempts run by this worker, by activity and outcome (ok, error).",
    labelNames: ["activity", "outcome"] as const,
    registers: [registry],
  });
  const retries = new Counter({
    name: "als_activity_retries_total",
    help: "Activity attempts after the first (Temporal retried a failed attempt), by activity.",
    labelNames: ["activity"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "als_activity_duration_seconds",
    help: "Time of one activity attempt, by activity.",
    labelNames: ["activity"] as const,
    buckets: DURATION_BUCKETS_S,
    registers: [registry],
  });
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const activity = activities.has(ctx.info.activityType) ? ctx.info.activityType : "other";
        if (ctx.info.attempt > 1) retries.inc({ activity });
        const startedAt = performance.now();
        try {
          const result = await next(input);
          executions.inc({ activity, outcome: "ok" });
          return result;
        } catch (error) {
          executions.inc({ activity, outcome: "error" });
          throw error;
        } finally {
          duration.observe({ activity }, (performance.now() - startedAt) / 1000);
        }
      },
    },
  });
}
