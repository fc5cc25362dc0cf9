import fixture from "../../fixtures/trace-providers/langsmith.json";
import { type ProviderReply, type ReceivedRequest, startProviderServer } from "./provider-server.ts";

export const LANGSMITH_KEY = fixture.api_key;
export const LANGSMITH_WORKSPACE = fixture.workspace_id;
export const LANGSMITH_SESSIONS = fixture.sessions;

/**
 * LangSmith's API from fixtures, `x-api-key` auth (an `X-Tenant-Id` other than the key's workspace
 * is refused): `GET /api/v1/sessions` (limit, offset) answering a list, and `POST /api/v1/runs/query`
 * (session, is_root, start_time, trace, limit, cursor) answering `{runs, cursors: {next}}`.
 */
/** What the server serves: the fixture, or generated traffic of the same shape (synthetic-traffic.ts) a test may add to. */
export type LangsmithData = { runs: (typeof fixture.runs)[number][] };

export function startLangsmithServer(data: LangsmithData = fixture) {
  return startProviderServer((request) => {
    if (request.headers["x-api-key"] !== LANGSMITH_KEY) return { status: 401, body: { detail: "Invalid token" } };
    const tenant = request.headers["x-tenant-id"];
    if (tenant !== undefined && tenant !== LANGSMITH_WORKSPACE) return { status: 403, body: { detail: "Forbidden" } };
    if (request.method === "GET" && request.path === "/api/v1/sessions") {
      const offset = Number(request.query.get("offset") ?? "0");
      const limit = Number(request.query.get("limit") ?? "100");
      return { status: 200, body: fixture.sessions.slice(offset, offset + limit) };
    }
    if (request.method === "POST" && request.path === "/api/v1/runs/query") return queryRuns(data, request);
    return { status: 404, body: { detail: "Not Found" } };
  });
}

interface RunsQuery {
  session?: string[];
  is_root?: boolean;
  start_time?: string;
  trace?: string;
  limit?: number;
  cursor?: string;
}

function queryRuns(data: LangsmithData, request: ReceivedRequest): ProviderReply {
  const query = request.body as RunsQuery;
  if (!query.session?.length && !query.trace)
    return { status: 400, body: { detail: "At least one of session, id, trace or reference_example must be specified" } };
  const limit = query.limit ?? 100;
  if (limit < 1 || limit > 100) return { status: 422, body: { detail: "limit must be between 1 and 100" } };
  const runs = data.runs.filter(
    (run) =>
      (!query.session || query.session.includes(run.session_id)) &&
      (query.is_root === undefined || (run.parent_run_id === null) === query.is_root) &&
      (query.trace === undefined || run.trace_id === query.trace) &&
      (query.start_time === undefined || Date.parse(`${run.start_time}Z`) >= Date.parse(query.start_time)),
  );
  const offset = query.cursor ? Number(Buffer.from(query.cursor, "base64url").toString()) : 0;
  const next = offset + limit < runs.length ? Buffer.from(String(offset + limit)).toString("base64url") : null;
  return { status: 200, body: { runs: runs.slice(offset, offset + limit), cursors: { next, prev: null } } };
}
