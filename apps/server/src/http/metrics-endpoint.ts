import { createHash, timingSafeEqual } from "node:crypto";
import { AppError } from "@als/contract";
import type { MetricsAccess } from "@als/core";
import type { Registry } from "prom-client";
import { errorResponse } from "./error-response.ts";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether `authorization` is `Bearer <token>`, compared in constant time (digests of equal length). */
const holdsToken = (authorization: string | null, token: string) => authorization !== null && timingSafeEqual(digest(authorization), digest(`Bearer ${token}`));

/**
 * GET /metrics: the registry in Prometheus's text exposition format, to whom `access` lets read it.
 * Off (hosted without METRICS_TOKEN) it is not served at all: 404 as any unknown path.
 */
export async function serveMetrics(access: MetricsAccess, registry: Registry, authorization: string | null): Promise<Response> {
  if (access.kind === "off") return errorResponse(new AppError("not_found", "no endpoint GET /metrics"));
  if (access.kind === "token" && !holdsToken(authorization, access.token)) {
    return errorResponse(new AppError("unauthorized", "GET /metrics needs the metrics token (METRICS_TOKEN) as a bearer credential"));
  }
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
}
