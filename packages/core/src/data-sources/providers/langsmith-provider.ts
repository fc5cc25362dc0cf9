import { matchesFilters } from "./filter-match.ts";
import { listIn, textOf, textOrNull, unixSecondsOf } from "./provider-json.ts";
import { providerRequest } from "./provider-request.ts";
import type { ProviderTrace, TracePage, TracePageRequest, TraceProvider } from "./trace-provider.ts";

const SESSION_PAGE = 100;
export const SPAN_PAGE = 100;
/** Pages of runs read for one trace: spans beyond them are not context we wait for. */
export const MAX_SPAN_PAGES = 20;

/**
 * trace_provider_c: LangSmith's API, authenticated by `x-api-key` (and `X-Tenant-Id` when the
 * connection names a workspace). Projects are tracer sessions (`GET /api/v1/sessions`, paged by
 * offset); traces are root runs of `POST /api/v1/runs/query`, paged by `cursors.next`. The
 * contract's filters run after download.
 */
export function langsmithProvider(baseUrl: string, apiKey: string, workspaceId: string | undefined, now: () => number): TraceProvider {
  const headers: Record<string, string> = { "x-api-key": apiKey, ...(workspaceId && { "x-tenant-id": workspaceId }) };
  const queryRuns = (body: Record<string, unknown>) => providerRequest(baseUrl, { method: "POST", path: "/api/v1/runs/query", headers, body }, now);

  return {
    async discoverProjects() {
      const projects = [];
      for (let offset = 0; ; offset += SESSION_PAGE) {
        const query = new URLSearchParams({ limit: String(SESSION_PAGE), offset: String(offset) });
        const { body } = await providerRequest(baseUrl, { method: "GET", path: `/api/v1/sessions?${query}`, headers }, now);
        const sessions = listIn(body, null);
        for (const session of sessions) {
          projects.push({ id: textOf(session.id), name: textOf(session.name), workspace_id: textOrNull(session.tenant_id) ?? workspaceId ?? null });
        }
        if (sessions.length < SESSION_PAGE) return projects;
      }
    },

    async pageTraces(request: TracePageRequest): Promise<TracePage> {
      const { body } = await queryRuns({
        session: [request.external_project_id],
        is_root: true,
        start_time: new Date(request.start * 1000).toISOString(),
        limit: request.limit,
        ...(request.cursor && { cursor: request.cursor }),
      });
      const traces = listIn(body, "runs")
        .map(toTrace)
        .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
      return { traces, next_cursor: nextCursor(body), filter_execution: "after_download" };
    },

    async relatedSpans(externalProjectId, traceId) {
      const spans: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_SPAN_PAGES; page++) {
        const { body } = await queryRuns({ session: [externalProjectId], trace: traceId, limit: SPAN_PAGE, ...(cursor && { cursor }) });
        spans.push(...listIn(body, "runs"));
        cursor = nextCursor(body);
        if (cursor === null) break;
      }
      return spans;
    },
  };
}

function nextCursor(body: unknown): string | null {
  return textOrNull((body as { cursors?: { next?: unknown } }).cursors?.next);
}

function toTrace(run: Record<string, unknown>): ProviderTrace {
  const extra = (run.extra ?? {}) as Record<string, unknown>;
  return {
    id: textOf(run.trace_id ?? run.id),
    started_at: unixSecondsOf(run.start_time),
    filterable: { metadata: extra.metadata ?? null, tags: run.tags ?? null, span_attributes: { name: run.name ?? null } },
    record: run,
  };
}
