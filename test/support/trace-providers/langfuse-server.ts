import fixture from "../../fixtures/trace-providers/langfuse.json";
import { type ProviderReply, type ReceivedRequest, startProviderServer } from "./provider-server.ts";

export const LANGFUSE_KEYS = { public_key: fixture.public_key, secret_key: fixture.secret_key };
export const LANGFUSE_PROJECT = fixture.project;

/** What the server serves: the fixture, or generated traffic of the same shape (synthetic-traffic.ts) a test may add to. */
export type LangfuseData = { traces: (typeof fixture.traces)[number][]; observations: (typeof fixture.observations)[number][] };
type Trace = LangfuseData["traces"][number];
type Observation = LangfuseData["observations"][number];

/**
 * Where Langfuse deployments differ: `v2: false` is one that does not serve
 * `/api/public/v2/observations` (404, as self-hosted Langfuse before v4); `legacy: "removed"` one
 * that no longer serves `/api/public/traces` and `/api/public/observations` (410, as Langfuse
 * Cloud after November 16, 2026).
 */
export interface LangfuseBehaviour {
  v2?: boolean;
  legacy?: "served" | "removed";
}

/** The notice the legacy endpoints' answers carry (RFC 9745 Deprecation, RFC 8594 Sunset). */
const LEGACY_HEADERS = { deprecation: "true", sunset: "Mon, 16 Nov 2026 00:00:00 GMT", link: '</api/public/v2/observations>; rel="successor-version"' };
/** Metadata values longer than this come truncated from /v2 unless their key is in `expandMetadata`. */
const METADATA_VALUE_CHARS = 200;

/**
 * Langfuse's public API from fixtures as its definition (../shared/providers/langfuse-openapi.yml)
 * describes it, Basic auth with the fixture's key pair (bound to one project):
 * `GET /api/public/projects`; `GET /api/public/v2/observations`, cursor-paged, with field groups
 * (`core` and `basic` unless `fields` names others), input and output as strings, metadata values
 * truncated unless expanded, and the structured `filter` (which replaces the single-field query
 * filters when given); and the legacy `GET /api/public/traces` and `GET /api/public/observations`
 * (page-numbered, deprecated). Langfuse v4 keeps observations only: a trace is its root
 * observation, which this server derives from the fixture's trace.
 */
export function startLangfuseServer(data: LangfuseData = fixture, behaviour: LangfuseBehaviour = {}) {
  const expected = `Basic ${Buffer.from(`${fixture.public_key}:${fixture.secret_key}`).toString("base64")}`;
  return startProviderServer((request) => {
    if (request.headers.authorization !== expected)
      return { status: 401, body: { message: "Invalid credentials. Confirm that you've configured the correct host." } };
    if (request.method !== "GET") return { status: 405, body: { message: "Method not allowed" } };
    if (request.path === "/api/public/projects") return { status: 200, body: { data: [fixture.project] } };
    if (request.path === "/api/public/v2/observations" && behaviour.v2 !== false) return listObservationsV2(data, request);
    if (request.path === "/api/public/traces" || request.path === "/api/public/observations") {
      if (behaviour.legacy === "removed") return { status: 410, body: { message: "This endpoint has been removed. Use GET /api/public/v2/observations." } };
      const reply = request.path === "/api/public/traces" ? listTraces(data, request) : listLegacyObservations(data, request);
      return { ...reply, headers: LEGACY_HEADERS };
    }
    return { status: 404, body: { message: "Not found" } };
  });
}

interface Condition {
  type: string;
  column: string;
  operator: string;
  value?: unknown;
  key?: string;
}

function listObservationsV2(data: LangfuseData, request: ReceivedRequest): ProviderReply {
  const query = request.query;
  const bad = (message: string): ProviderReply => ({ status: 400, body: { message } });
  if (query.get("parseIoAsJson") === "true") return bad("parseIoAsJson is no longer supported");
  const limit = Number(query.get("limit") ?? "50");
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return bad("limit must be between 1 and 1000");
  const groups = new Set((query.get("fields") ?? "core,basic").split(",").map((group) => group.trim()));
  const expand = new Set((query.get("expandMetadata") ?? "").split(",").filter(Boolean));
  let matches: (observation: Record<string, unknown>, trace: Trace) => boolean;
  const filterText = query.get("filter");
  if (filterText !== null) {
    let conditions: Condition[];
    try {
      conditions = JSON.parse(filterText);
      if (!Array.isArray(conditions)) throw new Error("not an array");
    } catch {
      return bad("filter must be a JSON array of conditions");
    }
    const compiled = conditions.map(compileCondition);
    const unsupported = compiled.indexOf(null);
    if (unsupported >= 0) return bad(`Invalid filter: ${JSON.stringify(conditions[unsupported])}`);
    matches = (observation, trace) => compiled.every((condition) => condition!(observation, trace));
  } else {
    // Without `filter`, the single-field query parameters apply.
    const from = query.get("fromStartTime");
    const to = query.get("toStartTime");
    const traceId = query.get("traceId");
    const root = query.get("isRootObservation");
    matches = (observation) =>
      (traceId === null || observation.traceId === traceId) &&
      (root === null || String(observation.isRootObservation) === root) &&
      (from === null || Date.parse(String(observation.startTime)) >= Date.parse(from)) &&
      (to === null || Date.parse(String(observation.startTime)) < Date.parse(to));
  }
  // Observations grouped by trace once per request: generated traffic holds tens of thousands.
  const observationsOf = Map.groupBy(data.observations, (item) => item.traceId);
  const traceId = filterText === null ? query.get("traceId") : null;
  const all = (traceId === null ? data.traces : data.traces.filter((trace) => trace.id === traceId))
    .flatMap((trace) => [rootObservation(trace), ...(observationsOf.get(trace.id) ?? []).map((item) => childObservation(item, trace))])
    .filter(({ observation, trace }) => matches(observation, trace))
    // Newest first, as Langfuse lists them.
    .sort(
      (a, b) =>
        Date.parse(String(b.observation.startTime)) - Date.parse(String(a.observation.startTime)) ||
        String(b.observation.id).localeCompare(String(a.observation.id)),
    );
  const cursor = query.get("cursor");
  const offset = cursor === null ? 0 : Number(Buffer.from(cursor, "base64").toString());
  if (!Number.isInteger(offset) || offset < 0) return bad("Invalid cursor");
  const page = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? Buffer.from(String(offset + limit)).toString("base64") : null;
  return { status: 200, body: { data: page.map(({ observation }) => shaped(observation, groups, expand)), meta: { cursor: next } } };
}

/** The conditions the adapter writes; anything else is refused, as an invalid filter is. */
function compileCondition(condition: Condition): ((observation: Record<string, unknown>, trace: Trace) => boolean) | null {
  const { type, column, operator, value } = condition;
  if (type === "datetime" && column === "startTime" && typeof value === "string") {
    const bound = Date.parse(value);
    if (operator === ">=") return (observation) => Date.parse(String(observation.startTime)) >= bound;
    if (operator === "<") return (observation) => Date.parse(String(observation.startTime)) < bound;
  }
  if (type === "boolean" && column === "isRootObservation" && operator === "=") return (observation) => observation.isRootObservation === value;
  if (type === "string" && column === "traceId" && operator === "=") return (observation) => observation.traceId === value;
  if (type === "arrayOptions" && column === "tags" && operator === "any of" && Array.isArray(value))
    return (_observation, trace) => trace.tags.some((tag) => value.includes(tag));
  if (type === "stringOptions" && column === "traceName" && operator === "any of" && Array.isArray(value))
    return (_observation, trace) => value.includes(trace.name);
  return null;
}

/** A trace's root observation as Langfuse v4 keeps it: the trace's input, output and attributes. */
function rootObservation(trace: Trace): { observation: Record<string, unknown>; trace: Trace } {
  return {
    trace,
    observation: {
      id: rootObservationId(trace.id),
      traceId: trace.id,
      startTime: trace.timestamp,
      endTime: new Date(Date.parse(trace.timestamp) + Math.round(trace.latency * 1000)).toISOString(),
      projectId: trace.projectId,
      parentObservationId: null,
      type: "AGENT",
      name: trace.name,
      level: "DEFAULT",
      statusMessage: null,
      version: trace.version,
      environment: trace.environment,
      bookmarked: trace.bookmarked,
      public: trace.public,
      userId: trace.userId,
      sessionId: trace.sessionId,
      isRootObservation: true,
      completionStartTime: null,
      createdAt: trace.createdAt,
      updatedAt: trace.updatedAt,
      input: trace.input,
      output: trace.output,
      metadata: trace.metadata,
      usageDetails: {},
      costDetails: {},
      totalCost: trace.totalCost,
      ...traceContext(trace),
    },
  };
}

/** The id of a trace's root observation (Langfuse's observation ids are 16 hex digits; a trace's 32). */
export const rootObservationId = (traceId: string) => traceId.slice(0, 16);

function childObservation(item: Observation, trace: Trace): { observation: Record<string, unknown>; trace: Trace } {
  return {
    trace,
    observation: {
      id: item.id,
      traceId: item.traceId,
      startTime: item.startTime,
      endTime: item.endTime,
      projectId: trace.projectId,
      parentObservationId: item.parentObservationId,
      type: item.type,
      name: item.name,
      level: item.level,
      statusMessage: item.statusMessage,
      version: item.version,
      environment: item.environment,
      bookmarked: false,
      public: false,
      userId: trace.userId,
      sessionId: trace.sessionId,
      isRootObservation: false,
      completionStartTime: item.completionStartTime,
      createdAt: item.startTime,
      updatedAt: item.endTime,
      input: item.input,
      output: item.output,
      metadata: item.metadata,
      providedModelName: item.model,
      modelParameters: item.modelParameters,
      usageDetails: item.usageDetails,
      costDetails: item.costDetails,
      totalCost: null,
      ...traceContext(trace),
    },
  };
}

/** The trace's attributes /v2 denormalises onto each of its observations (`trace_context`). */
const traceContext = (trace: Trace) => ({ tags: trace.tags, release: trace.release, traceName: trace.name });

const GROUPS: Record<string, readonly string[]> = {
  core: ["id", "traceId", "startTime", "endTime", "projectId", "parentObservationId", "type"],
  basic: ["name", "level", "statusMessage", "version", "environment", "bookmarked", "public", "userId", "sessionId", "isRootObservation"],
  time: ["completionStartTime", "createdAt", "updatedAt"],
  io: ["input", "output"],
  metadata: ["metadata"],
  model: ["providedModelName", "internalModelId", "modelParameters"],
  usage: ["usageDetails", "costDetails", "totalCost", "usagePricingTierName"],
  trace_context: ["tags", "release", "traceName"],
};

/** An observation with the requested field groups only, input and output as raw strings, long metadata values cut. */
function shaped(observation: Record<string, unknown>, groups: ReadonlySet<string>, expand: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = { modelId: null, inputPrice: null, outputPrice: null, totalPrice: null };
  for (const group of ["core", ...groups]) for (const field of GROUPS[group] ?? []) out[field] = observation[field] ?? null;
  if (groups.has("io")) {
    for (const field of ["input", "output"]) out[field] = observation[field] == null ? null : JSON.stringify(observation[field]);
  }
  if (groups.has("metadata") && observation.metadata && typeof observation.metadata === "object") {
    out.metadata = Object.fromEntries(
      Object.entries(observation.metadata).map(([key, value]) => {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        return [key, !expand.has(key) && text.length > METADATA_VALUE_CHARS ? `${text.slice(0, METADATA_VALUE_CHARS)}...` : value];
      }),
    );
  }
  return out;
}

function listTraces(data: LangfuseData, request: ReceivedRequest): ProviderReply {
  const from = request.query.get("fromTimestamp");
  const to = request.query.get("toTimestamp");
  if (request.query.get("orderBy") !== null && request.query.get("orderBy") !== "timestamp.asc")
    return { status: 400, body: { message: "unsupported orderBy" } };
  const traces = data.traces.filter(
    (trace) => (from === null || Date.parse(trace.timestamp) >= Date.parse(from)) && (to === null || Date.parse(trace.timestamp) < Date.parse(to)),
  );
  return paged(request, traces);
}

function listLegacyObservations(data: LangfuseData, request: ReceivedRequest): ProviderReply {
  const traceId = request.query.get("traceId");
  const items = data.observations.filter((item) => item.traceId === traceId);
  return paged(
    request,
    items.map((item) => ({
      ...item,
      promptName: null,
      promptVersion: null,
      modelId: null,
      inputPrice: null,
      outputPrice: null,
      totalPrice: null,
      calculatedInputCost: null,
      calculatedOutputCost: null,
      calculatedTotalCost: null,
      latency: (Date.parse(item.endTime) - Date.parse(item.startTime)) / 1000,
      timeToFirstToken: null,
    })),
  );
}

function paged(request: ReceivedRequest, items: readonly unknown[]): ProviderReply {
  const page = Number(request.query.get("page") ?? "1");
  const limit = Number(request.query.get("limit") ?? "50");
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(limit) || limit < 1 || limit > 100)
    return { status: 400, body: { message: "Invalid page or limit" } };
  return {
    status: 200,
    body: { data: items.slice((page - 1) * limit, page * limit), meta: { page, limit, totalItems: items.length, totalPages: Math.ceil(items.length / limit) } },
  };
}
