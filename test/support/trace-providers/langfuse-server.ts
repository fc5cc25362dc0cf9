import fixture from "../../fixtures/trace-providers/langfuse.json";
import { type ProviderReply, type ReceivedRequest, startProviderServer } from "./provider-server.ts";

export const LANGFUSE_KEYS = { public_key: fixture.public_key, secret_key: fixture.secret_key };
export const LANGFUSE_PROJECT = fixture.project;

/**
 * Langfuse's public API from fixtures, Basic auth with the fixture's key pair (bound to one
 * project): `GET /api/public/projects`, `GET /api/public/traces` (page, limit, fromTimestamp,
 * toTimestamp, orderBy) and `GET /api/public/observations` (traceId, page, limit), each list
 * answering `{data, meta: {page, limit, totalItems, totalPages}}`.
 */
/** What the server serves: the fixture, or generated traffic of the same shape (synthetic-traffic.ts) a test may add to. */
export type LangfuseData = { traces: (typeof fixture.traces)[number][]; observations: (typeof fixture.observations)[number][] };

export function startLangfuseServer(data: LangfuseData = fixture) {
  const expected = `Basic ${Buffer.from(`${fixture.public_key}:${fixture.secret_key}`).toString("base64")}`;
  return startProviderServer((request) => {
    if (request.headers.authorization !== expected)
      return { status: 401, body: { message: "Invalid credentials. Confirm that you've configured the correct host." } };
    if (request.method !== "GET") return { status: 405, body: { message: "Method not allowed" } };
    if (request.path === "/api/public/projects") return { status: 200, body: { data: [fixture.project] } };
    if (request.path === "/api/public/traces") return listTraces(data, request);
    if (request.path === "/api/public/observations")
      return paged(
        request,
        data.observations.filter((item) => item.traceId === request.query.get("traceId")),
      );
    return { status: 404, body: { message: "Not found" } };
  });
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
