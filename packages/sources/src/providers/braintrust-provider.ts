import { matchesFilters } from "./filter-match.ts";
import { listIn, textOf, textOrNull, unixSecondsOf } from "./provider-json.ts";
import { providerRequest } from "./provider-request.ts";
import type { ExternalProject, FilterExecution, ProviderTrace, TraceFilter, TracePage, TracePageRequest, TraceProvider } from "./trace-provider.ts";
import { TraceProviderError } from "./trace-provider-error.ts";

const PROJECT_PAGE = 100;
/** Spans read for one trace. */
export const BRAINTRUST_SPAN_LIMIT = 1000;
/** Pages of one trace's spans read at most (a page may be cut short by size). */
const MAX_SPAN_PAGES = 20;

/**
 * trace_provider_a: Braintrust's REST API. Projects come from `GET /v1/project` (paged with
 * `starting_after`); traces from `POST /btql`, whose query carries the time bounds and the filters
 * it can express, so they apply before pagination (rule 13); every page is checked locally too.
 * The query pins what the provider's documentation describes differently in different places:
 * the shape (`spans`: one row per span, not one per whole trace) and the order (oldest first).
 * A page that carries a cursor is not the last, however short: BTQL cuts pages by size too.
 */
export function braintrustProvider(baseUrl: string, apiKey: string, now: () => number): TraceProvider {
  const headers = { authorization: `Bearer ${apiKey}` };
  const get = (path: string) => providerRequest(baseUrl, { method: "GET", path, headers }, now);
  const btql = async (lines: string[], cursor: string | null) => {
    const query = [...lines, ...(cursor ? [`cursor: ${quoted(safeCursor(cursor))}`] : [])].join("\n");
    const { body, headers: answered } = await providerRequest(baseUrl, { method: "POST", path: "/btql", headers, body: { query, fmt: "json" } }, now);
    const rows = listIn(body, "data");
    const next = textOrNull((body as Record<string, unknown>).cursor) ?? answered.get("x-bt-cursor");
    // An empty page ends the walk even with a cursor (Braintrust's own CLI stops there too).
    return { rows, next: rows.length === 0 ? null : (next ?? null) };
  };

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
      const { rows, next } = await btql(
        [
          "select: *",
          `from: project_logs(${quoted(safeId(request.external_project_id))}) spans`,
          `filter: ${filter}`,
          "sort: created asc",
          `limit: ${request.limit}`,
        ],
        request.cursor,
      );
      const traces = rows
        .map(toTrace)
        .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
      return { traces, next_cursor: next, filter_execution: pushed.execution };
    },

    async relatedSpans(externalProjectId, traceId, _startedAt, maxSpans = BRAINTRUST_SPAN_LIMIT) {
      const limit = Math.min(maxSpans, BRAINTRUST_SPAN_LIMIT);
      const spans: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_SPAN_PAGES && spans.length < limit; page++) {
        const { rows, next } = await btql(
          [
            "select: *",
            `from: project_logs(${quoted(safeId(externalProjectId))}) spans`,
            `filter: root_span_id = ${quoted(safeId(traceId))}`,
            "sort: created asc",
            `limit: ${limit - spans.length}`,
          ],
          cursor,
        );
        spans.push(...rows);
        cursor = next;
        if (cursor === null) break;
      }
      return spans;
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

/** A cursor going back into a query: Braintrust's are base64; a quote would end the literal. */
function safeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9+/=_-]{1,4096}$/.test(cursor)) throw new TraceProviderError("unavailable", "the provider handed a cursor that is not one");
  return cursor;
}

/** An identifier going into a query: ids Braintrust hands out (UUIDs, span ids) and nothing else. */
function safeId(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw new TraceProviderError("not_found", "not an identifier of the provider");
  return id;
}
