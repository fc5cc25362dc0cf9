import { createServer, type Server } from "node:http";
import { checkMetricsAccess, type MetricsAccess } from "@als/core";
import { Gauge, type Registry } from "prom-client";

/** A scrape waits at most this long for the Temporal SDK's own exporter; past it those metrics are left out. */
const TEMPORAL_READ_TIMEOUT_MS = 2_000;

export interface MetricsListenerOptions {
  host: string;
  port: number;
  access: MetricsAccess;
  registry: Registry;
  /** The Temporal SDK's Prometheus exporter on loopback (Runtime telemetry), whose metrics are served after ours. */
  temporalMetricsUrl?: string;
}

/**
 * The worker's GET /metrics on a port of its own: its registry, followed by the Temporal SDK's
 * metrics (task slots, poll and schedule latencies, workflow and activity task counts) read from
 * the SDK's exporter on loopback, so one scrape target gives both. Everything else answers 404.
 */
export async function startMetricsListener(options: MetricsListenerOptions): Promise<Server> {
  const { registry, temporalMetricsUrl } = options;
  const temporalUp = new Gauge({
    name: "als_temporal_sdk_metrics_up",
    help: "1 when this scrape read the Temporal SDK's metrics (appended below), else 0.",
    registers: [registry],
  });
  const temporalMetrics = async (): Promise<string> => {
    if (!temporalMetricsUrl) return "";
    try {
      const response = await fetch(temporalMetricsUrl, { signal: AbortSignal.timeout(TEMPORAL_READ_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`status ${response.status}`);
      const text = await response.text();
      temporalUp.set(1);
      return text;
    } catch {
      temporalUp.set(0);
      return "";
    }
  };
  const server = createServer((request, response) => {
    const answer = (status: number, body: string, type = "application/json") => response.writeHead(status, { "content-type": type }).end(body);
    const verdict = checkMetricsAccess(options.access, request.headers.authorization ?? null);
    if (request.method !== "GET" || new URL(request.url ?? "/", "http://worker").pathname !== "/metrics" || verdict === "off") {
      return answer(404, JSON.stringify({ error: "not_found", detail: `no endpoint ${request.method} ${request.url}` }));
    }
    if (verdict === "unauthorized") {
      return answer(401, JSON.stringify({ error: "unauthorized", detail: "GET /metrics needs the metrics token (METRICS_TOKEN) as a bearer credential" }));
    }
    temporalMetrics()
      .then(async (temporal) => answer(200, `${await registry.metrics()}\n${temporal}`, registry.contentType))
      .catch(() => answer(503, JSON.stringify({ error: "unavailable", detail: "the metrics could not be read; retry" })));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
