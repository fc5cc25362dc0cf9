import { createHash, timingSafeEqual } from "node:crypto";
import type { MetricsAccess } from "../settings.ts";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether a scrape sending `authorization` may read the metrics: `off` (hosted without
 * METRICS_TOKEN: not served at all), `unauthorized` (a token is set and this is not its bearer), or
 * `allowed`. The token is compared in constant time (digests of equal length).
 */
export function checkMetricsAccess(access: MetricsAccess, authorization: string | null): "allowed" | "off" | "unauthorized" {
  if (access.kind === "off") return "off";
  if (access.kind === "open") return "allowed";
  return authorization !== null && timingSafeEqual(digest(authorization), digest(`Bearer ${access.token}`)) ? "allowed" : "unauthorized";
}
