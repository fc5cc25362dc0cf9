import { AppError } from "@als/contract";
import { checkMetricsAccess, type MetricsAccess } from "@als/core";
import type { Registry } from "prom-client";
import { errorResponse } from "./error-response.ts";

/**
 * GET /metrics: the registry in Prometheus's text exposition format, to whom `access` lets read it.
 * Off (hosted without METRICS_TOKEN) it is not served at all: 404 as any unknown path.
 */
export async function serveMetrics(access: MetricsAccess, registry: Registry, authorization: string | null): Promise<Response> {
  const verdict = checkMetricsAccess(access, authorization);
  if (verdict === "off") return errorResponse(new AppError("not_found", "no endpoint GET /metrics"));
  if (verdict === "unauthorized") {
    return errorResponse(new AppError("unauthorized", "GET /metrics needs the metrics token (METRICS_TOKEN) as a bearer credential"));
  }
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
}
