import fixture from "../../fixtures/trace-providers/braintrust.json";
import { type ProviderReply, type ReceivedRequest, startProviderServer } from "./provider-server.ts";

type Event = (typeof fixture.events)[number];
/** What the server serves: the fixture, or generated traffic of the same shape (synthetic-traffic.ts) a test may add to. */
export type BraintrustData = { keys: Record<string, string[]>; projects: typeof fixture.projects; events: Event[] };

/** A key reaching both projects. */
export const BRAINTRUST_KEY = "sk-bt-fixture-key";
/** A key reaching the sales project only. */
export const BRAINTRUST_SALES_ONLY_KEY = "sk-bt-sales-only";
export const BRAINTRUST_PROJECTS = fixture.projects;

/**
 * Braintrust's API from fixtures: `GET /v1/project` (limit, starting_after) as its definition
 * (../shared/providers/braintrust-openapi.yaml) describes it, and `POST /btql` with the pipe-syntax
 * query its documentation describes (select, from project_logs('<id>') with the `spans` shape,
 * filter, sort, limit, cursor) answering `{data, schema, cursor?}` and the cursor in `x-bt-cursor`.
 * As the real service, a page is cut when its rows outgrow the synchronous answer (`pageBytes`)
 * as well as at its limit, and carries a cursor then, whatever its length; unsorted, rows come
 * newest first. The filter grammar is the part of BTQL the adapter writes; anything else is a 400,
 * as an unparsable query is, so an adapter that writes something else fails its tests.
 */
/** Bytes of rows one synchronous answer holds (Braintrust's own limit is larger; tests cut pages with smaller ones). */
export const BTQL_PAGE_BYTES = 256 * 1024;

export async function startBraintrustServer(data: BraintrustData = fixture, behaviour: { pageBytes?: number } = {}) {
  // This server's keys: `revoke` takes one back, as an organisation deleting a key does.
  const keys = new Map(Object.entries(data.keys));
  const server = await startProviderServer((request) => {
    const reachable = keys.get(/^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "");
    if (!reachable) return { status: 401, body: { error: "Invalid API key" } };
    if (request.method === "GET" && request.path === "/v1/project") return listProjects(data, request, reachable);
    if (request.method === "POST" && request.path === "/btql") return runBtql(data, request, reachable, behaviour.pageBytes ?? BTQL_PAGE_BYTES);
    return { status: 404, body: { error: `no route ${request.method} ${request.path}` } };
  });
  return { ...server, revoke: (key: string) => keys.delete(key) };
}

function listProjects(data: BraintrustData, request: ReceivedRequest, reachable: string[]): ProviderReply {
  const projects = data.projects.filter((project) => reachable.includes(project.id));
  const limit = Number(request.query.get("limit") ?? "100");
  const after = request.query.get("starting_after");
  const start = after === null ? 0 : projects.findIndex((project) => project.id === after) + 1;
  return { status: 200, body: { objects: projects.slice(start, start + limit) } };
}

function runBtql(data: BraintrustData, request: ReceivedRequest, reachable: string[], pageBytes: number): ProviderReply {
  const { query, fmt } = request.body as { query: string; fmt?: string };
  if (fmt !== "json") return badQuery("fmt must be json");
  const clauses = new Map<string, string>();
  for (const line of query.split("\n")) {
    const match = /^(select|from|filter|sort|limit|cursor): (.*)$/.exec(line);
    if (!match) return badQuery(`cannot parse: ${line}`);
    clauses.set(match[1]!, match[2]!);
  }
  const from = /^project_logs\('([^']+)'\) spans$/.exec(clauses.get("from") ?? "");
  if (clauses.get("select") !== "*" || !from) return badQuery("expected select: * and from: project_logs('<id>') spans");
  if (!reachable.includes(from[1]!)) return { status: 403, body: { error: "Missing read access to project_logs" } };
  const sort = clauses.get("sort");
  if (sort !== undefined && sort !== "created asc" && sort !== "created desc") return badQuery(`unsupported sort: ${sort}`);
  let matches: (event: Event) => boolean;
  try {
    matches = compileFilter(clauses.get("filter") ?? "true");
  } catch (error) {
    return badQuery((error as Error).message);
  }
  const rows = data.events
    .filter((event) => event.project_id === from[1] && matches(event))
    .sort((a, b) => Date.parse(a.created) - Date.parse(b.created) || a.id.localeCompare(b.id));
  if (sort !== "created asc") rows.reverse();
  const limit = Number(clauses.get("limit") ?? "1000");
  const cursor = /^'([^']*)'$/.exec(clauses.get("cursor") ?? "''")?.[1] ?? "";
  const offset = cursor === "" ? 0 : Number(Buffer.from(cursor, "base64url").toString());
  const page: Event[] = [];
  let bytes = 0;
  for (const row of rows.slice(offset, offset + limit)) {
    bytes += Buffer.byteLength(JSON.stringify(row));
    if (page.length > 0 && bytes > pageBytes) break;
    page.push(row);
  }
  // Cut at its limit or by size, a page carries a cursor, even one that leads to an empty page.
  const cut = page.length === limit || offset + page.length < Math.min(rows.length, offset + limit);
  const next = cut ? Buffer.from(String(offset + page.length)).toString("base64url") : null;
  return { status: 200, body: { data: page, schema: {}, ...(next && { cursor: next }) }, ...(next && { headers: { "x-bt-cursor": next } }) };
}

const badQuery = (message: string): ProviderReply => ({ status: 400, body: { error: `BTQL: ${message}` } });

/** The filter terms the adapter writes, joined by ` and ` (an or-group in parentheses). */
function compileFilter(text: string): (event: Event) => boolean {
  const terms = splitTopLevel(text, " and ").map(compileTerm);
  return (event) => terms.every((term) => term(event));
}

function compileTerm(term: string): (event: Event) => boolean {
  if (term === "true") return () => true;
  if (term === "is_root") return (event) => event.is_root;
  if (term.startsWith("(") && term.endsWith(")")) {
    const alternatives = splitTopLevel(term.slice(1, -1), " or ").map(compileTerm);
    return (event) => alternatives.some((alternative) => alternative(event));
  }
  let match = /^created (>=|<) '([^']+)'$/.exec(term);
  if (match) {
    const bound = Date.parse(match[2]!);
    return match[1] === ">=" ? (event) => Date.parse(event.created) >= bound : (event) => Date.parse(event.created) < bound;
  }
  match = /^([a-z_.]+) is not null$/.exec(term);
  if (match) return (event) => at(event, match![1]!) != null;
  match = /^root_span_id = '([^']*)'$/.exec(term);
  if (match) return (event) => event.root_span_id === match![1];
  match = /^tags includes '([^']*)'$/.exec(term);
  if (match) return (event) => (event.tags ?? []).includes(match![1]!);
  match = /^([a-z_.]+) in \((.+)\)$/.exec(term);
  if (match) {
    const values = splitTopLevel(match[2]!, ", ").map((value) => /^'([^']*)'$/.exec(value)?.[1]);
    if (values.some((value) => value === undefined)) throw new Error(`cannot parse list: ${match[2]}`);
    return (event) => values.includes(at(event, match![1]!) as string);
  }
  throw new Error(`unsupported term: ${term}`);
}

function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i));
      start = i + separator.length;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function at(event: Event, path: string): unknown {
  return path.split(".").reduce<unknown>((value, key) => (value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined), event);
}
