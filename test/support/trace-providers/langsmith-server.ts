import fixture from "../../fixtures/trace-providers/langsmith.json";
import { type ProviderReply, type ReceivedRequest, startProviderServer } from "./provider-server.ts";

export const LANGSMITH_KEY = fixture.api_key;
export const LANGSMITH_WORKSPACE = fixture.workspace_id;
export const LANGSMITH_SESSIONS = fixture.sessions;

/** What the server serves: the fixture, or generated traffic of the same shape (synthetic-traffic.ts) a test may add to. */
export type LangsmithData = { runs: (typeof fixture.runs)[number][] };
type Run = LangsmithData["runs"][number];

/**
 * How the deployment behaves where LangSmith deployments differ: `v2: false` is one that does not
 * serve `POST /v2/runs/query` yet (404), as older self-hosted ones.
 */
export interface LangsmithBehaviour {
  v2?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The deprecated query's answers say so, as LangSmith's do, and name the successor. */
const DEPRECATED = { deprecation: "true", link: '</v2/runs/query>; rel="successor-version"' };

/**
 * LangSmith's API from fixtures as its definition (../shared/providers/langsmith-openapi.json)
 * describes it, `x-api-key` auth (an `X-Tenant-Id` other than the key's workspace is refused):
 * `GET /api/v1/sessions` (limit, offset); `POST /v2/runs/query` (project_ids, trace_id, is_root,
 * min/max_start_time, sort_order defaulting to DESC, page_size, selects, cursor) answering
 * `{items, has_more, next_cursor}` with only the selected fields; and the deprecated
 * `POST /api/v1/runs/query` (session, trace, is_root, start_time, end_time, order defaulting to
 * desc, limit, cursor) answering `{runs, cursors}`. Ids are UUIDs: anything else is a 422.
 */
export function startLangsmithServer(data: LangsmithData = fixture, behaviour: LangsmithBehaviour = {}) {
  return startProviderServer((request) => {
    if (request.headers["x-api-key"] !== LANGSMITH_KEY) return { status: 401, body: { detail: "Invalid token" } };
    const tenant = request.headers["x-tenant-id"];
    if (tenant !== undefined && tenant !== LANGSMITH_WORKSPACE) return { status: 403, body: { detail: "Forbidden" } };
    if (request.method === "GET" && request.path === "/api/v1/sessions") {
      const offset = Number(request.query.get("offset") ?? "0");
      const limit = Number(request.query.get("limit") ?? "100");
      return { status: 200, body: fixture.sessions.slice(offset, offset + limit) };
    }
    if (request.method === "POST" && request.path === "/v2/runs/query" && behaviour.v2 !== false) return queryRunsV2(data, request);
    if (request.method === "POST" && request.path === "/api/v1/runs/query") return queryRunsV1(data, request);
    return { status: 404, body: { detail: "Not Found" } };
  });
}

interface RunsQueryV2 {
  project_ids?: string[];
  trace_id?: string;
  is_root?: boolean;
  min_start_time?: string;
  max_start_time?: string;
  sort_order?: "ASC" | "DESC";
  page_size?: number;
  selects?: string[];
  cursor?: string;
}

function queryRunsV2(data: LangsmithData, request: ReceivedRequest): ProviderReply {
  const query = (request.body ?? {}) as RunsQueryV2;
  const problem = (status: number, detail: string): ProviderReply => ({ status, body: { type: "about:blank", title: "Bad Request", status, detail } });
  if (!query.project_ids?.length) return problem(400, "project_ids or reference_dataset_id is required");
  const ids = [...query.project_ids, ...(query.trace_id === undefined ? [] : [query.trace_id])];
  if (ids.some((id) => !UUID.test(id))) return problem(422, "invalid UUID");
  const pageSize = query.page_size ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return problem(400, "page_size must be between 1 and 1000");
  // Unbounded, a query reads the last day only, newest first: the defaults the definition states.
  const now = Date.now();
  const min = query.min_start_time === undefined ? now - 86_400_000 : Date.parse(query.min_start_time);
  const max = query.max_start_time === undefined ? now : Date.parse(query.max_start_time);
  if (Number.isNaN(min) || Number.isNaN(max)) return problem(400, "min_start_time and max_start_time are RFC 3339 times");
  const runs = ordered(
    data.runs.filter(
      (run) =>
        query.project_ids!.includes(run.session_id) &&
        (query.trace_id === undefined || run.trace_id === query.trace_id) &&
        (query.is_root === undefined || (run.parent_run_id === null) === query.is_root) &&
        startOf(run) >= min &&
        startOf(run) <= max,
    ),
    query.sort_order ?? "DESC",
  );
  const offset = query.cursor ? Number(Buffer.from(query.cursor, "base64url").toString()) : 0;
  const page = runs.slice(offset, offset + pageSize);
  const more = offset + pageSize < runs.length;
  return {
    status: 200,
    body: {
      items: page.map((run) => selected(v2Run(data, run), query.selects ?? [])),
      has_more: more,
      ...(more && { next_cursor: Buffer.from(String(offset + pageSize)).toString("base64url") }),
    },
  };
}

interface RunsQueryV1 {
  session?: string[];
  is_root?: boolean;
  start_time?: string;
  end_time?: string;
  trace?: string;
  order?: "asc" | "desc";
  limit?: number;
  cursor?: string;
}

function queryRunsV1(data: LangsmithData, request: ReceivedRequest): ProviderReply {
  const query = request.body as RunsQueryV1;
  const invalid = (msg: string, loc: string[]): ProviderReply => ({ status: 422, body: { detail: [{ loc: ["body", ...loc], msg, type: "value_error" }] } });
  if (!query.session?.length && !query.trace) return invalid("At least one of session, id, trace or reference_example must be specified", []);
  if ([...(query.session ?? []), ...(query.trace ? [query.trace] : [])].some((id) => !UUID.test(id)))
    return invalid("Input should be a valid UUID", ["session"]);
  const limit = query.limit ?? 100;
  if (limit < 1 || limit > 100) return invalid("limit must be between 1 and 100", ["limit"]);
  const runs = ordered(
    data.runs.filter(
      (run) =>
        (!query.session || query.session.includes(run.session_id)) &&
        (query.is_root === undefined || (run.parent_run_id === null) === query.is_root) &&
        (query.trace === undefined || run.trace_id === query.trace) &&
        (query.start_time === undefined || startOf(run) >= Date.parse(query.start_time)) &&
        (query.end_time === undefined || startOf(run) <= Date.parse(query.end_time)),
    ),
    query.order === "asc" ? "ASC" : "DESC",
  );
  const offset = query.cursor ? Number(Buffer.from(query.cursor, "base64url").toString()) : 0;
  const next = offset + limit < runs.length ? Buffer.from(String(offset + limit)).toString("base64url") : null;
  return {
    status: 200,
    body: { runs: runs.slice(offset, offset + limit).map(v1Run), cursors: { next, prev: null } },
    headers: DEPRECATED,
  };
}

/** LangSmith stores times in UTC without a zone; its answers carry them as RFC 3339 (with the zone). */
const startOf = (run: Run) => Date.parse(`${run.start_time}Z`);
const zoned = (time: string | null) => (time === null ? null : `${time}Z`);

function ordered(runs: Run[], order: "ASC" | "DESC"): Run[] {
  const sorted = [...runs].sort((a, b) => startOf(a) - startOf(b) || a.dotted_order.localeCompare(b.dotted_order));
  return order === "ASC" ? sorted : sorted.reverse();
}

function v1Run(run: Run) {
  return { ...run, start_time: zoned(run.start_time), end_time: zoned(run.end_time) };
}

/** A run as /v2 answers it: its own field names, upper-case enums, ancestors instead of the parent. */
function v2Run(data: LangsmithData, run: Run): Record<string, unknown> {
  const ancestors: string[] = [];
  for (let parent = run.parent_run_id; parent !== null; ) {
    ancestors.unshift(parent);
    parent = data.runs.find((candidate) => candidate.id === parent)?.parent_run_id ?? null;
  }
  const extra = (run.extra ?? {}) as { metadata?: Record<string, unknown> };
  return {
    ID: { id: run.id },
    NAME: { name: run.name },
    RUN_TYPE: { run_type: run.run_type.toUpperCase() },
    STATUS: { status: run.status.toUpperCase() },
    START_TIME: { start_time: zoned(run.start_time) },
    END_TIME: run.end_time === null ? {} : { end_time: zoned(run.end_time) },
    ERROR: run.error === null ? {} : { error: run.error },
    EXTRA: { extra },
    METADATA: { metadata: extra.metadata ?? {} },
    INPUTS: { inputs: run.inputs },
    OUTPUTS: run.outputs === null ? {} : { outputs: run.outputs },
    TAGS: { tags: run.tags },
    TRACE_ID: { trace_id: run.trace_id },
    PROJECT_ID: { project_id: run.session_id },
    PARENT_RUN_IDS: { parent_run_ids: ancestors },
    IS_ROOT: { is_root: run.parent_run_id === null },
    DOTTED_ORDER: { dotted_order: run.dotted_order },
    APP_PATH: { app_path: run.app_path },
  };
}

/** Only the selected fields, `id` always: "If omitted, only `id` is returned." */
function selected(groups: Record<string, unknown>, selects: readonly string[]): Record<string, unknown> {
  return Object.assign({}, groups.ID, ...selects.map((field) => groups[field] ?? {}));
}
