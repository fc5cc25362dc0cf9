import type { Stage } from "@als/core";
import { Counter, Histogram, type Registry } from "prom-client";

/** Seconds: from a cache hit (a millisecond) to the server backstop (a minute). */
const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The answers the admission of publishes and searches gives when it refuses work: a publish that
 * found no slot in time or whose commit was not confirmed in time, a search shed under load or past
 * its deadline.
 */
const ADMISSION_REFUSALS: Record<string, { path: "publish" | "search"; reason: string }> = {
  capacity_deadline_exceeded: { path: "publish", reason: "no_slot" },
  admission_timeout: { path: "publish", reason: "commit_deadline" },
  overloaded: { path: "search", reason: "shed" },
  search_deadline: { path: "search", reason: "deadline" },
};

/** How one request was answered, as the metrics see it. */
export interface AnsweredRequest {
  /**
   * The declared procedure (`search.unified`), or the name of a fixed route (`health`, `mcp`,
   * `unmatched`): never the path, which carries ids and whatever a caller sends.
   */
  procedure: string;
  status: number;
  /** The error code of an error answer (ERROR_TABLE), else undefined. */
  code: string | undefined;
  seconds: number;
  /** The stages the request recorded (Server-Timing's), `total` aside. */
  stages: readonly Stage[];
}

/** The request metrics of one API process. */
export interface RequestMetrics {
  observe(request: AnsweredRequest): void;
}

/**
 * Registers on `registry` the request counters and histograms. Every label takes its values from
 * the code (procedures of the contract, error codes of ERROR_TABLE, statuses, stage names), so the
 * number of series is bounded whatever callers send.
 */
export function registerRequestMetrics(registry: Registry): RequestMetrics {
  const requests = new Counter({
    name: "als_http_requests_total",
    help: "Requests answered, by procedure, status and error code (empty on success).",
    labelNames: ["procedure", "status", "code"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "als_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by procedure.",
    labelNames: ["procedure"] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const stages = new Histogram({
    name: "als_request_stage_duration_seconds",
    help: "Stages of a request (the Server-Timing stages: embed, the entity searches, admission, serialize...), by procedure and stage.",
    labelNames: ["procedure", "stage"] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const refusals = new Counter({
    name: "als_admission_refusals_total",
    help: "Work refused by admission: publishes (no_slot, commit_deadline) and searches (shed, deadline).",
    labelNames: ["path", "reason"] as const,
    registers: [registry],
  });
  for (const { path, reason } of Object.values(ADMISSION_REFUSALS)) refusals.inc({ path, reason }, 0);
  return {
    observe({ procedure, status, code, seconds, stages: recorded }) {
      requests.inc({ procedure, status: String(status), code: code ?? "" });
      latency.observe({ procedure }, seconds);
      for (const stage of recorded) if (stage.name !== "total") stages.observe({ procedure, stage: stage.name }, stage.ms / 1000);
      const refusal = code === undefined ? undefined : ADMISSION_REFUSALS[code];
      if (refusal) refusals.inc(refusal);
    },
  };
}
