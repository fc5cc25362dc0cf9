import { matchesFilters } from "./filter-match.ts";
import { listIn, textOf, textOrNull, unixSecondsOf } from "./provider-json.ts";
import { providerRequest } from "./provider-request.ts";
import type { ProviderTrace, TracePage, TracePageRequest, TraceProvider } from "./trace-provider.ts";
import { TraceProviderError } from "./trace-provider-error.ts";

const SESSION_PAGE = 100;
export const SPAN_PAGE = 100;
/** Pages of runs read for one trace: spans beyond them are not context we wait for. */
export const MAX_SPAN_PAGES = 20;
/** The fields a run is read with on /v2 (it returns only `id` unless told): everything a mapping or a filter reads. */
const RUN_FIELDS = [
  "ID",
  "NAME",
  "RUN_TYPE",
  "STATUS",
  "START_TIME",
  "END_TIME",
  "ERROR",
  "EXTRA",
  "METADATA",
  "INPUTS",
  "OUTPUTS",
  "TAGS",
  "TRACE_ID",
  "PROJECT_ID",
  "PARENT_RUN_IDS",
  "IS_ROOT",
  "DOTTED_ORDER",
];
/** A cursor of the deprecated query carries this prefix: its pages continue there, never on /v2. */
const V1_CURSOR = "v1:";

/**
 * trace_provider_c: LangSmith's API, authenticated by `x-api-key` (and `X-Tenant-Id` when the
 * connection names a workspace). Projects are tracer sessions (`GET /api/v1/sessions`, paged by
 * offset). Runs come from `POST /v2/runs/query`; a deployment that answers 404 there (one older
 * than /v2) is read through the deprecated `POST /api/v1/runs/query`. Either way every windowed
 * read names both bounds and ascending order: both queries default to newest first, and /v2 to the
 * last day. The contract's filters run after download.
 */
export function langsmithProvider(baseUrl: string, apiKey: string, workspaceId: string | undefined, now: () => number): TraceProvider {
  const headers: Record<string, string> = { "x-api-key": apiKey, ...(workspaceId && { "x-tenant-id": workspaceId }) };
  const post = (path: string, body: Record<string, unknown>) => providerRequest(baseUrl, { method: "POST", path, headers, body }, now);

  /** One page of runs: /v2 unless the cursor continues a /v1 walk or /v2 is not served. */
  async function queryRuns(query: RunsQuery, cursor: string | null): Promise<{ runs: Record<string, unknown>[]; next: string | null; endpoint: string }> {
    if (cursor === null || !cursor.startsWith(V1_CURSOR)) {
      try {
        const { body } = await post("/v2/runs/query", {
          project_ids: [query.project],
          ...(query.trace !== undefined && { trace_id: query.trace }),
          ...(query.isRoot !== undefined && { is_root: query.isRoot }),
          min_start_time: iso(query.start),
          max_start_time: iso(query.end),
          sort_order: "ASC",
          page_size: query.limit,
          selects: RUN_FIELDS,
          ...(cursor !== null && { cursor }),
        });
        const more = (body as { has_more?: unknown }).has_more === true;
        return { runs: listIn(body, "items"), next: more ? textOrNull((body as { next_cursor?: unknown }).next_cursor) : null, endpoint: "/v2/runs/query" };
      } catch (error) {
        if (!(error instanceof TraceProviderError && error.kind === "not_found" && cursor === null)) throw error;
      }
    }
    const { body } = await post("/api/v1/runs/query", {
      session: [query.project],
      ...(query.trace !== undefined && { trace: query.trace }),
      ...(query.isRoot !== undefined && { is_root: query.isRoot }),
      start_time: iso(query.start),
      end_time: iso(query.end),
      order: "asc",
      limit: Math.min(query.limit, 100),
      ...(cursor !== null && { cursor: cursor.slice(V1_CURSOR.length) }),
    });
    const next = textOrNull((body as { cursors?: { next?: unknown } }).cursors?.next);
    return { runs: listIn(body, "runs"), next: next === null ? null : `${V1_CURSOR}${next}`, endpoint: "/api/v1/runs/query (deprecated)" };
  }

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
      const { runs, next, endpoint } = await queryRuns(
        { project: request.external_project_id, isRoot: true, start: request.start, end: request.end, limit: request.limit },
        request.cursor,
      );
      const traces = runs
        .map(toTrace)
        .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
      return {
        traces,
        next_cursor: next,
        filter_execution: "after_download",
        endpoint,
        ...(endpoint !== "/v2/runs/query" && {
          endpoint_note: "this deployment does not serve /v2/runs/query: read through the deprecated /api/v1/runs/query",
        }),
      };
    },

    async relatedSpans(externalProjectId, traceId, startedAt, maxSpans = SPAN_PAGE * MAX_SPAN_PAGES) {
      const spans: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      // A trace's runs start at or after its root; a day bounds how long one trace runs.
      const window = { start: startedAt, end: startedAt + 86_400 };
      // One page size throughout a cursor's walk; the last page is cut locally.
      const limit = Math.min(SPAN_PAGE, maxSpans);
      for (let page = 0; page < MAX_SPAN_PAGES && spans.length < maxSpans; page++) {
        const { runs, next } = await queryRuns({ project: externalProjectId, trace: traceId, ...window, limit }, cursor);
        spans.push(...runs);
        cursor = next;
        if (cursor === null) break;
      }
      return spans.slice(0, maxSpans);
    },
  };
}

interface RunsQuery {
  project: string;
  trace?: string;
  isRoot?: boolean;
  /** Unix seconds, both bounds sent. */
  start: number;
  end: number;
  limit: number;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function toTrace(run: Record<string, unknown>): ProviderTrace {
  const extra = (run.extra ?? {}) as Record<string, unknown>;
  return {
    id: textOf(run.trace_id ?? run.id),
    started_at: unixSecondsOf(run.start_time),
    filterable: { metadata: run.metadata ?? extra.metadata ?? null, tags: run.tags ?? null, span_attributes: { name: run.name ?? null } },
    record: run,
  };
}
