import { matchesFilters } from "./filter-match.ts";
import { listIn, textOf, textOrNull, unixSecondsOf } from "./provider-json.ts";
import { providerRequest } from "./provider-request.ts";
import type { ExternalProject, FilterExecution, ProviderTrace, TraceFilter, TracePage, TracePageRequest, TraceProvider } from "./trace-provider.ts";
import { TraceProviderError } from "./trace-provider-error.ts";

const PROJECT_PAGE = 100;
/** Spans read for one trace. */
export const BRAINTRUST_SPAN_LIMIT = 1000;

/**
 * trace_provider_a: Braintrust's REST API. Projects come from `GET /v1/project` (paged with
 * `starting_after`); traces from `POST /btql`, whose query carries the time bounds and the filters
 * it can express, so they apply before pagination (rule 13); every page is checked locally too.
 */
export function braintrustProvider(baseUrl: string, apiKey: string, now: () => number): TraceProvider {
  const headers = { authorization: `Bearer ${apiKey}` };
  const get = (path: string) => providerRequest(baseUrl, { method: "GET", path, headers }, now);
  const btql = (query: string) => providerRequest(baseUrl, { method: "POST", path: "/btql", headers, body: { query, fmt: "json" } }, now);

  return {
    async discoverProjects() {
      const projects: ExternalProject[] = [];
      let after: string | null = null;
      for (;;) {
        const query = new URLSearchParams({ limit: String(PROJECT_PAGE), ...(after && { starting_after: after }) });
        const { body } = await get(`/v1/project?${query}`);
        const objects = listIn(body, "objects");
        for (const project of objects) projects.push({ id: textOf(project.id), name: textOf(project.name), workspace_id: textOrNull(project.org_id) });
        if (objects.length < PROJECT_PAGE) return projects;
        after = textOf(objects.at(-1)!.id);
      }
    },

    async pageTraces(request: TracePageRequest): Promise<TracePage> {
      const pushed = braintrustFilterPushDown(request.filters);
      const filter = [
        "is_root",
        `created >= ${quoted(new Date(request.start * 1000).toISOString())}`,
        `created < ${quoted(new Date(request.end * 1000).toISOString())}`,
        ...pushed.clauses,
      ].join(" and ");
      const lines = [
        "select: *",
        `from: project_logs(${quoted(safeId(request.external_project_id))})`,
        `filter: ${filter}`,
        `limit: ${request.limit}`,
        ...(request.cursor ? [`cursor: ${quoted(request.cursor)}`] : []),
      ];
      const { body, headers: answered } = await btql(lines.join("\n"));
      const rows = listIn(body, "data");
      const traces = rows
        .map(toTrace)
        .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
      const cursor = textOrNull((body as Record<string, unknown>).cursor) ?? answered.get("x-bt-cursor");
      // A short page is the last: Braintrust may still hand a cursor that leads nowhere.
      return { traces, next_cursor: rows.length < request.limit ? null : (cursor ?? null), filter_execution: pushed.execution };
    },

    async relatedSpans(externalProjectId, traceId) {
      const { body } = await btql(
        [
          "select: *",
          `from: project_logs(${quoted(safeId(externalProjectId))})`,
          `filter: root_span_id = ${quoted(safeId(traceId))}`,
          `limit: ${BRAINTRUST_SPAN_LIMIT}`,
        ].join("\n"),
      );
      return listIn(body, "data");
    },
  };
}

function toTrace(row: Record<string, unknown>): ProviderTrace {
  const spanAttributes = (row.span_attributes ?? {}) as Record<string, unknown>;
  return {
    id: textOf(row.root_span_id ?? row.id),
    started_at: unixSecondsOf(row.created),
    filterable: { metadata: row.metadata ?? null, tags: row.tags ?? null, span_attributes: { name: spanAttributes.name ?? null } },
    record: row,
  };
}

/**
 * The filters BTQL can say with the contract's meaning: tags membership, the span name, and
 * existence. `metadata.*` equality stays local: a metadata field may hold an array, where the
 * contract means "contains", which one BTQL comparison cannot say for both shapes. A value BTQL
 * would need escaping for stays local too.
 */
export function braintrustFilterPushDown(filters: readonly TraceFilter[]): { clauses: string[]; execution: FilterExecution } {
  const clauses: string[] = [];
  for (const filter of filters) {
    const clause = clauseOf(filter);
    if (clause !== null) clauses.push(clause);
  }
  const execution = clauses.length === filters.length ? "before_download" : clauses.length === 0 ? "after_download" : "partial";
  return { clauses, execution };
}

function clauseOf(filter: TraceFilter): string | null {
  if (!/^[A-Za-z0-9_.]+$/.test(filter.path) || filter.values.some((value) => !PLAIN_VALUE.test(value))) return null;
  if (filter.op === "exists") return `${filter.path} is not null`;
  if (filter.path === "tags") return `(${filter.values.map((value) => `tags includes ${quoted(value)}`).join(" or ")})`;
  if (filter.path === "span_attributes.name") return `span_attributes.name in (${filter.values.map(quoted).join(", ")})`;
  return null;
}

/** Values quoted into BTQL without escaping: no quotes, no backslashes, no control characters. */
const PLAIN_VALUE = /^[^'"\\\p{Cc}]*$/u;

const quoted = (value: string) => `'${value}'`;

/** An identifier going into a query: ids Braintrust hands out (UUIDs, span ids) and nothing else. */
function safeId(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw new TraceProviderError("not_found", "not an identifier of the provider");
  return id;
}
