import { matchesFilters } from "./filter-match.ts";
import { listIn, textOf, textOrNull, unixSecondsOf } from "./provider-json.ts";
import { providerRequest } from "./provider-request.ts";
import type { FilterExecution, ProviderTrace, TraceFilter, TracePage, TracePageRequest, TraceProvider } from "./trace-provider.ts";
import { TraceProviderError } from "./trace-provider-error.ts";

export const OBSERVATION_PAGE = 100;
/** Pages of observations read for one trace: spans beyond them are not context we wait for. */
export const MAX_OBSERVATION_PAGES = 20;
/** The field groups a trace and its spans are read with: everything a mapping reads (v2 sends `core` and `basic` only unless told). */
const TRACE_FIELDS = "core,basic,time,io,metadata,trace_context";
const SPAN_FIELDS = "core,basic,time,io,metadata,model,usage";
const V2 = "/api/public/v2/observations";
/** A cursor of the legacy listing (a page number) carries this prefix; a /v2 cursor carries V2_CURSOR. */
const LEGACY_CURSOR = "legacy:";
const V2_CURSOR = "v2:";
const LEGACY_NOTE = `this deployment does not serve ${V2} (Langfuse before v4): read through the deprecated /api/public/traces`;

/**
 * trace_provider_b: Langfuse's public API, with HTTP Basic auth (public key as the user, secret
 * key as the password). A key pair belongs to one project (`GET /api/public/projects`). Traces are
 * the root observations of `GET /api/public/v2/observations` (cursor-paged, with the field groups
 * the mapping reads; input and output come as strings and are parsed back), rebuilt into the shape
 * of a Langfuse trace so a mapping reads the same paths whichever endpoint answered. The window,
 * the tags and the span name go into its structured filter; metadata equality and existence stay
 * local (a metadata value may be an array, where the contract means "contains"). A deployment
 * without v2 (404) is read through the deprecated `GET /api/public/traces` and
 * `/api/public/observations`, which Langfuse Cloud removes; 404/410 from those too is not_found.
 */
export function langfuseProvider(baseUrl: string, publicKey: string, secretKey: string, now: () => number): TraceProvider {
  const headers = { authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}` };
  const get = (path: string, query: Record<string, string>) =>
    providerRequest(baseUrl, { method: "GET", path: `${path}?${new URLSearchParams(query)}`, headers }, now);
  /** A /v2 read, or null when the deployment does not serve /v2 (404): the caller falls back. */
  const getV2 = async (query: Record<string, string>) => {
    try {
      return (await get(V2, query)).body;
    } catch (error) {
      if (error instanceof TraceProviderError && error.kind === "not_found") return null;
      throw error;
    }
  };

  async function legacyTraces(request: TracePageRequest, page: number): Promise<TracePage> {
    const { body } = await get("/api/public/traces", {
      page: String(page),
      limit: String(Math.min(request.limit, 100)),
      fromTimestamp: new Date(request.start * 1000).toISOString(),
      toTimestamp: new Date(request.end * 1000).toISOString(),
      orderBy: "timestamp.asc",
    });
    const totalPages = Number((body as { meta?: { totalPages?: unknown } }).meta?.totalPages ?? 0);
    const traces = listIn(body, "data")
      .map((trace) => toTrace(trace))
      .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
    return {
      traces,
      next_cursor: page < totalPages ? `${LEGACY_CURSOR}${page + 1}` : null,
      filter_execution: "after_download",
      endpoint: "/api/public/traces (deprecated)",
      endpoint_note: LEGACY_NOTE,
    };
  }

  return {
    async discoverProjects() {
      const { body } = await providerRequest(baseUrl, { method: "GET", path: "/api/public/projects", headers }, now);
      return listIn(body, "data").map((project) => ({ id: textOf(project.id), name: textOf(project.name), workspace_id: null }));
    },

    async pageTraces(request: TracePageRequest): Promise<TracePage> {
      if (request.cursor?.startsWith(LEGACY_CURSOR)) return legacyTraces(request, Number(request.cursor.slice(LEGACY_CURSOR.length)));
      const pushed = langfuseFilterPushDown(request.filters);
      const conditions = [
        { type: "datetime", column: "startTime", operator: ">=", value: new Date(request.start * 1000).toISOString() },
        { type: "datetime", column: "startTime", operator: "<", value: new Date(request.end * 1000).toISOString() },
        { type: "boolean", column: "isRootObservation", operator: "=", value: true },
        ...pushed.conditions,
      ];
      const body = await getV2({
        fields: TRACE_FIELDS,
        limit: String(request.limit),
        filter: JSON.stringify(conditions),
        ...(request.metadata_keys?.length && { expandMetadata: request.metadata_keys.join(",") }),
        ...(request.cursor !== null && { cursor: request.cursor.slice(V2_CURSOR.length) }),
      });
      if (body === null) {
        if (request.cursor !== null) throw new TraceProviderError("not_found", `the provider stopped serving ${V2} (HTTP 404) in the middle of a read`);
        return legacyTraces(request, 1);
      }
      const cursor = textOrNull((body as { meta?: { cursor?: unknown } }).meta?.cursor);
      const traces = listIn(body, "data")
        .map((observation) => toTrace(traceOfRoot(observation)))
        .filter((trace) => trace.started_at >= request.start && trace.started_at < request.end && matchesFilters(trace, request.filters));
      return { traces, next_cursor: cursor === null ? null : `${V2_CURSOR}${cursor}`, filter_execution: pushed.execution, endpoint: V2 };
    },

    async relatedSpans(_externalProjectId, traceId, _startedAt, maxSpans = OBSERVATION_PAGE * MAX_OBSERVATION_PAGES) {
      const spans: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_OBSERVATION_PAGES && spans.length < maxSpans; page++) {
        const limit = Math.min(OBSERVATION_PAGE, maxSpans - spans.length);
        const body = await getV2({ traceId, fields: SPAN_FIELDS, limit: String(limit), ...(cursor !== null && { cursor }) });
        if (body === null) return legacySpans(traceId, maxSpans);
        spans.push(...listIn(body, "data").map(withParsedIo));
        cursor = textOrNull((body as { meta?: { cursor?: unknown } }).meta?.cursor);
        if (cursor === null) break;
      }
      return spans.slice(0, maxSpans);
    },
  };

  async function legacySpans(traceId: string, maxSpans: number): Promise<Record<string, unknown>[]> {
    const spans: Record<string, unknown>[] = [];
    // Page numbers need one page size throughout: the last page is cut locally.
    const limit = Math.min(OBSERVATION_PAGE, maxSpans);
    for (let page = 1; page <= MAX_OBSERVATION_PAGES && spans.length < maxSpans; page++) {
      const { body } = await get("/api/public/observations", { traceId, page: String(page), limit: String(limit) });
      spans.push(...listIn(body, "data"));
      if (page >= Number((body as { meta?: { totalPages?: unknown } }).meta?.totalPages ?? 0)) break;
    }
    return spans.slice(0, maxSpans);
  }
}

/**
 * The filters Langfuse's structured filter says with the contract's meaning: tags membership and
 * the trace's name. Metadata stays local (see langfuseProvider).
 */
export function langfuseFilterPushDown(filters: readonly TraceFilter[]): { conditions: Record<string, unknown>[]; execution: FilterExecution } {
  const conditions: Record<string, unknown>[] = [];
  for (const filter of filters) {
    if (filter.op === "exists") continue;
    if (filter.path === "tags") conditions.push({ type: "arrayOptions", column: "tags", operator: "any of", value: filter.values });
    else if (filter.path === "span_attributes.name") conditions.push({ type: "stringOptions", column: "traceName", operator: "any of", value: filter.values });
  }
  const execution = conditions.length === filters.length ? "before_download" : conditions.length === 0 ? "after_download" : "partial";
  return { conditions, execution };
}

/** A root observation as the Langfuse trace it stands for (the legacy trace's field names), input and output parsed. */
function traceOfRoot(observation: Record<string, unknown>): Record<string, unknown> {
  const parsed = withParsedIo(observation);
  return {
    id: parsed.traceId,
    timestamp: parsed.startTime,
    name: parsed.traceName ?? parsed.name ?? null,
    input: parsed.input ?? null,
    output: parsed.output ?? null,
    sessionId: parsed.sessionId ?? null,
    userId: parsed.userId ?? null,
    metadata: parsed.metadata ?? null,
    tags: parsed.tags ?? [],
    release: parsed.release ?? null,
    version: parsed.version ?? null,
    environment: parsed.environment ?? null,
    public: parsed.public ?? false,
    projectId: parsed.projectId ?? null,
    rootObservationId: parsed.id,
    createdAt: parsed.createdAt ?? null,
    updatedAt: parsed.updatedAt ?? null,
  };
}

/** /v2 sends input and output as raw strings: JSON ones are parsed back, other text stays text. */
function withParsedIo(observation: Record<string, unknown>): Record<string, unknown> {
  const parse = (value: unknown) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  };
  return { ...observation, input: parse(observation.input), output: parse(observation.output) };
}

function toTrace(trace: Record<string, unknown>): ProviderTrace {
  return {
    id: textOf(trace.id),
    started_at: unixSecondsOf(trace.timestamp),
    filterable: { metadata: trace.metadata ?? null, tags: trace.tags ?? null, span_attributes: { name: trace.name ?? null } },
    record: trace,
  };
}
