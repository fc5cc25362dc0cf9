import { matchesFilters } from "./filter-match.ts";
import { listIn, textOf, unixSecondsOf } from "./provider-json.ts";
import { providerRequest } from "./provider-request.ts";
import type { ProviderTrace, TracePage, TracePageRequest, TraceProvider } from "./trace-provider.ts";

export const OBSERVATION_PAGE = 100;
/** Pages of observations read for one trace: spans beyond them are not context we wait for. */
export const MAX_OBSERVATION_PAGES = 20;

/**
 * trace_provider_b: Langfuse's public API, with HTTP Basic auth (public key as the user, secret
 * key as the password). A key pair belongs to one project (`GET /api/public/projects`). Traces are
 * paged by page number (`GET /api/public/traces`, `meta.totalPages`); its query cannot say the
 * contract's filters, so they run after download.
 */
export function langfuseProvider(baseUrl: string, publicKey: string, secretKey: string, now: () => number): TraceProvider {
  const headers = { authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}` };
  const get = (path: string, query: Record<string, string>) =>
    providerRequest(baseUrl, { method: "GET", path: `${path}?${new URLSearchParams(query)}`, headers }, now);

  return {
    async discoverProjects() {
      const { body } = await providerRequest(baseUrl, { method: "GET", path: "/api/public/projects", headers }, now);
      return listIn(body, "data").map((project) => ({ id: textOf(project.id), name: textOf(project.name), workspace_id: null }));
    },

    async pageTraces(request: TracePageRequest): Promise<TracePage> {
      const page = request.cursor === null ? 1 : Number(request.cursor);
      const { body } = await get("/api/public/traces", {
        page: String(page),
        limit: String(request.limit),
        fromTimestamp: new Date(request.start * 1000).toISOString(),
        toTimestamp: new Date(request.end * 1000).toISOString(),
        orderBy: "timestamp.asc",
      });
      const totalPages = Number((body as { meta?: { totalPages?: unknown } }).meta?.totalPages ?? 0);
      const traces = listIn(body, "data")
        .map(toTrace)
        .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
      return { traces, next_cursor: page < totalPages ? String(page + 1) : null, filter_execution: "after_download" };
    },

    async relatedSpans(_externalProjectId, traceId) {
      const spans: Record<string, unknown>[] = [];
      for (let page = 1; page <= MAX_OBSERVATION_PAGES; page++) {
        const { body } = await get("/api/public/observations", { traceId, page: String(page), limit: String(OBSERVATION_PAGE) });
        spans.push(...listIn(body, "data"));
        if (page >= Number((body as { meta?: { totalPages?: unknown } }).meta?.totalPages ?? 0)) break;
      }
      return spans;
    },
  };
}

function toTrace(trace: Record<string, unknown>): ProviderTrace {
  return {
    id: textOf(trace.id),
    started_at: unixSecondsOf(trace.timestamp),
    filterable: { metadata: trace.metadata ?? null, tags: trace.tags ?? null, span_attributes: { name: trace.name ?? null } },
    record: trace,
  };
}
