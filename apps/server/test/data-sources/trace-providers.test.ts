import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  createTraceProvider,
  PROVIDER_READ_ATTEMPTS,
  type ProviderName,
  providerBaseUrl,
  type TraceFilter,
  type TraceProvider,
  TraceProviderError,
} from "@als/core";
import { BRAINTRUST_KEY, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import { LANGFUSE_KEYS, startLangfuseServer } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY, LANGSMITH_WORKSPACE, startLangsmithServer } from "@als/test-support/trace-providers/langsmith-server.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";

const now = () => Math.floor(Date.now() / 1000);
const unix = (iso: string) => Date.parse(iso) / 1000;
/** The fixtures' traffic: five traces of the support project between Nov 1 and Nov 5, 2026. */
const ALL = { start: unix("2026-11-01T00:00:00Z"), end: unix("2026-11-06T00:00:00Z") };
const BRAINTRUST_SUPPORT = "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01";
const LANGFUSE_SUPPORT = "cm3x2k9p10001lfsupport001";
const LANGSMITH_SUPPORT = "a3f0c1de-0000-4000-8000-000000000001";

interface Case {
  provider: ProviderName;
  start: () => Promise<ProviderServer>;
  credentials: { api_key: string; public_key?: string; workspace_id?: string };
  badCredentials: { api_key: string; public_key?: string };
  project: string;
  workspace: string | null;
  projectNames: string[];
  /** Langfuse's v2 lists observations newest first and has no order parameter; the others read oldest first. */
  newestFirst: boolean;
  /** The provider's id of the fixture trace `t<n>`. */
  traceId: (n: number) => string;
  filterExecution: "after_download" | "before_download";
  /** Spans of fixture trace 1, its root included: the agent's LLM call, a retrieval and a tool call. */
  spansPerTrace: number;
}

const CASES: Case[] = [
  {
    provider: "trace_provider_a",
    start: startBraintrustServer,
    credentials: { api_key: BRAINTRUST_KEY },
    badCredentials: { api_key: "sk-wrong" },
    project: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
    workspace: "e2a9c7f0-3b1d-4c5e-8f6a-7b8c9d0e1f07",
    projectNames: ["support-bot", "sales-bot"],
    newestFirst: false,
    traceId: (n) => `5e1f0a00-0000-4000-8000-0000000000${n}0`,
    filterExecution: "before_download",
    spansPerTrace: 4,
  },
  {
    provider: "trace_provider_b",
    start: startLangfuseServer,
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    badCredentials: { api_key: "sk-lf-wrong", public_key: LANGFUSE_KEYS.public_key },
    project: "cm3x2k9p10001lfsupport001",
    workspace: null,
    projectNames: ["support-bot"],
    newestFirst: true,
    traceId: (n) => `a1b2c3d4e5f60718293a4b5c6d7e8f0${n}`,
    filterExecution: "before_download",
    spansPerTrace: 4,
  },
  {
    provider: "trace_provider_c",
    start: startLangsmithServer,
    credentials: { api_key: LANGSMITH_KEY },
    badCredentials: { api_key: "lsv2_wrong" },
    project: "a3f0c1de-0000-4000-8000-000000000001",
    workspace: LANGSMITH_WORKSPACE,
    projectNames: ["support-bot", "sales-bot"],
    newestFirst: false,
    traceId: (n) => `1f0b5a3c-0000-4000-8000-0000000000${n}0`,
    filterExecution: "after_download",
    spansPerTrace: 4,
  },
];

/** Every trace of [start, end) through every page of `limit`, and the pages it took. */
async function readAll(adapter: TraceProvider, project: string, filters: TraceFilter[], range = ALL, limit = 2) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await adapter.pageTraces({ external_project_id: project, ...range, filters, cursor, limit });
    ids.push(...page.traces.map((trace) => trace.id));
    cursor = page.next_cursor;
    pages++;
  } while (cursor !== null && pages < 20);
  return { ids, pages };
}

for (const c of CASES) {
  describe(`${c.provider} adapter against its protocol server`, () => {
    let server: ProviderServer;
    let adapter: TraceProvider;
    const connect = (credentials: Case["credentials"]) => createTraceProvider({ provider: c.provider, region: "us", baseUrl: server.url }, credentials, now);
    /** The ids of fixture traces in the order the provider lists them. */
    const t = (...numbers: number[]) => (c.newestFirst ? numbers.reverse() : numbers).map(c.traceId);

    beforeAll(async () => {
      server = await c.start();
      adapter = connect(c.credentials);
    });
    afterAll(() => server.close());

    test("discovery lists the projects the credential reaches, with their workspace", async () => {
      const projects = await adapter.discoverProjects();
      expect(projects.map((project) => project.name)).toEqual(c.projectNames);
      expect(projects.every((project) => project.workspace_id === c.workspace)).toBe(true);
    });

    test("a refused credential is credential_refused, whatever the call", async () => {
      const refused = connect(c.badCredentials);
      for (const call of [
        () => refused.discoverProjects(),
        () => refused.pageTraces({ external_project_id: c.project, ...ALL, filters: [], cursor: null, limit: 2 }),
      ]) {
        const error = await call().catch((caught) => caught);
        expect(error).toBeInstanceOf(TraceProviderError);
        expect(error.kind).toBe("credential_refused");
        expect(error.message).not.toContain(c.badCredentials.api_key);
      }
    });

    test("pages of two walk every root trace of the range, in order, once", async () => {
      const { ids, pages } = await readAll(adapter, c.project, []);
      expect(ids).toEqual(t(1, 2, 3, 4, 5));
      expect(pages).toBe(3);
    });

    test("the range is start-inclusive and end-exclusive", async () => {
      const { ids } = await readAll(adapter, c.project, [], { start: unix("2026-11-01T11:00:00Z"), end: unix("2026-11-03T15:00:00Z") });
      expect(ids).toEqual(t(2, 3));
    });

    test.each([
      ["eq on a metadata string", [{ path: "metadata.env", op: "eq", values: ["prod"] }], [1, 4, 5]],
      ["eq matching a member of a metadata array", [{ path: "metadata.plan", op: "eq", values: ["beta"] }], [1]],
      ["a number compared by its string form", [{ path: "metadata.tier", op: "eq", values: ["3"] }], [1]],
      ["a boolean compared as 'false'", [{ path: "metadata.paid", op: "eq", values: ["false"] }], [2]],
      ["a value with a comma kept literally", [{ path: "metadata.note", op: "eq", values: ["a, b"] }], [4]],
      ["in over tags", [{ path: "tags", op: "in", values: ["staging", "vip"] }], [1, 2]],
      ["exists skips null and missing", [{ path: "metadata.env", op: "exists", values: [] }], [1, 2, 4, 5]],
      ["the span name", [{ path: "span_attributes.name", op: "eq", values: ["summarize"] }], [3]],
      [
        "filters combine with AND",
        [
          { path: "tags", op: "eq", values: ["prod"] },
          { path: "metadata.user_id", op: "in", values: ["u-2", "u-3"] },
        ],
        [4, 5],
      ],
    ] as [string, TraceFilter[], number[]][])("filter: %s", async (_name, filters, expected) => {
      expect((await readAll(adapter, c.project, filters)).ids).toEqual(t(...expected));
    });

    test("filter_execution says where the filters ran", async () => {
      const page = await adapter.pageTraces({
        external_project_id: c.project,
        ...ALL,
        filters: [{ path: "tags", op: "eq", values: ["prod"] }],
        cursor: null,
        limit: 5,
      });
      expect(page.filter_execution).toBe(c.filterExecution);
    });

    test("related spans are the spans of the one trace", async () => {
      const spans = await adapter.relatedSpans(c.project, c.traceId(1), ALL.start);
      expect(spans).toHaveLength(c.spansPerTrace);
      expect(JSON.stringify(spans)).not.toContain("Is the staging API down?");
    });

    test("a 429 is retried after its Retry-After, then answers", async () => {
      const before = server.received.length;
      server.rateLimitNext(2, "1");
      const started = Date.now();
      expect(await adapter.discoverProjects()).toHaveLength(c.projectNames.length);
      expect(server.received.length - before).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    });

    test("a rate limit that outlasts the retries fails with when to come back", async () => {
      const before = server.received.length;
      server.rateLimitNext(PROVIDER_READ_ATTEMPTS, "0");
      const error = await adapter.discoverProjects().catch((caught) => caught);
      expect(error).toBeInstanceOf(TraceProviderError);
      expect(error.kind).toBe("rate_limited");
      expect(server.received.length - before).toBe(PROVIDER_READ_ATTEMPTS);
    });

    test("a Retry-After longer than we wait fails at once with its retry_at", async () => {
      const before = server.received.length;
      server.rateLimitNext(1, "3600");
      const error = await adapter.discoverProjects().catch((caught) => caught);
      expect(error.kind).toBe("rate_limited");
      expect(error.retryAt).toBeGreaterThanOrEqual(now() + 3590);
      expect(server.received.length - before).toBe(1);
    });
  });
}

describe("trace_provider_a pushes filters into its query", () => {
  let server: ProviderServer;
  let adapter: TraceProvider;
  beforeAll(async () => {
    server = await startBraintrustServer();
    adapter = createTraceProvider({ provider: "trace_provider_a", region: "us", baseUrl: server.url }, { api_key: BRAINTRUST_KEY }, now);
  });
  afterAll(() => server.close());

  const lastQuery = () => (server.received.at(-1)!.body as { query: string }).query;

  test("tags, the span name, existence and the time bounds go into the BTQL filter", async () => {
    const page = await adapter.pageTraces({
      external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
      ...ALL,
      filters: [
        { path: "tags", op: "in", values: ["prod", "vip"] },
        { path: "span_attributes.name", op: "eq", values: ["chat"] },
        { path: "metadata.env", op: "exists", values: [] },
      ],
      cursor: null,
      limit: 10,
    });
    expect(page.filter_execution).toBe("before_download");
    expect(lastQuery()).toContain("filter: is_root and created >= '2026-11-01T00:00:00.000Z' and created < '2026-11-06T00:00:00.000Z'");
    expect(lastQuery()).toContain("(tags includes 'prod' or tags includes 'vip')");
    expect(lastQuery()).toContain("span_attributes.name in ('chat')");
    expect(lastQuery()).toContain("metadata.env is not null");
    expect(page.traces.map((trace) => trace.id)).toEqual([
      "5e1f0a00-0000-4000-8000-000000000010",
      "5e1f0a00-0000-4000-8000-000000000040",
      "5e1f0a00-0000-4000-8000-000000000050",
    ]);
  });

  test("metadata equality stays local (partial), a value with a quote too", async () => {
    const partial = await adapter.pageTraces({
      external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
      ...ALL,
      filters: [
        { path: "tags", op: "eq", values: ["prod"] },
        { path: "metadata.user_id", op: "eq", values: ["u-2"] },
      ],
      cursor: null,
      limit: 10,
    });
    expect(partial.filter_execution).toBe("partial");
    expect(lastQuery()).not.toContain("u-2");
    expect(partial.traces.map((trace) => trace.id)).toEqual(["5e1f0a00-0000-4000-8000-000000000050"]);
    const quoted = await adapter.pageTraces({
      external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
      ...ALL,
      filters: [{ path: "tags", op: "eq", values: ["it's"] }],
      cursor: null,
      limit: 10,
    });
    expect(quoted.filter_execution).toBe("after_download");
    expect(quoted.traces).toEqual([]);
  });
});

describe("provider hosts", () => {
  test("each region reads its provider's public host", () => {
    expect(providerBaseUrl("trace_provider_a", "us")).toBe("https://api.braintrust.dev");
    expect(providerBaseUrl("trace_provider_b", "eu")).toBe("https://cloud.langfuse.com");
    expect(providerBaseUrl("trace_provider_b", "hipaa-us")).toBe("https://hipaa.cloud.langfuse.com");
    expect(providerBaseUrl("trace_provider_c", "eu")).toBe("https://eu.api.smith.langchain.com");
    expect(() => providerBaseUrl("trace_provider_a", "eu")).toThrow();
  });

  test("the operator override replaces one provider region's host only", () => {
    const overrides = { "trace_provider_b:jp": "http://127.0.0.1:9" };
    expect(providerBaseUrl("trace_provider_b", "jp", overrides)).toBe("http://127.0.0.1:9");
    expect(providerBaseUrl("trace_provider_b", "us", overrides)).toBe("https://us.cloud.langfuse.com");
  });
});

describe("trace_provider_a: pages BTQL cuts by size", () => {
  let server: ProviderServer;
  let adapter: TraceProvider;
  beforeAll(async () => {
    // Room for about one root span per answer: every page is cut short of its limit, with a cursor.
    server = await startBraintrustServer(undefined, { pageBytes: 1500 });
    adapter = createTraceProvider({ provider: "trace_provider_a", region: "us", baseUrl: server.url }, { api_key: BRAINTRUST_KEY }, now);
  });
  afterAll(() => server.close());

  test("a short page with a cursor is not the last: the walk goes on until the cursor is gone", async () => {
    const first = await adapter.pageTraces({ external_project_id: BRAINTRUST_SUPPORT, ...ALL, filters: [], cursor: null, limit: 100 });
    expect(first.traces.length).toBeLessThan(5);
    expect(first.next_cursor).not.toBeNull();
    const { ids, pages } = await readAll(adapter, BRAINTRUST_SUPPORT, [], ALL, 100);
    expect(ids).toEqual([1, 2, 3, 4, 5].map((n) => `5e1f0a00-0000-4000-8000-0000000000${n}0`));
    expect(pages).toBeGreaterThan(2);
  });

  test("the query pins the spans shape and the oldest-first order, which the provider's defaults leave open", async () => {
    const query = (server.received.at(-1)!.body as { query: string }).query;
    expect(query).toContain(`from: project_logs('${BRAINTRUST_SUPPORT}') spans`);
    expect(query).toContain("sort: created asc");
  });

  test("unsorted, the server answers newest first: the order the adapter pins is not the default", async () => {
    const response = await fetch(`${server.url}/btql`, {
      method: "POST",
      headers: { authorization: `Bearer ${BRAINTRUST_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ query: `select: *\nfrom: project_logs('${BRAINTRUST_SUPPORT}') spans\nfilter: is_root\nlimit: 2`, fmt: "json" }),
    });
    const { data } = (await response.json()) as { data: { created: string }[] };
    expect(Date.parse(data[0]!.created)).toBeGreaterThan(Date.parse(data[1]!.created));
  });
});

describe("trace_provider_c: /v2/runs/query, bounded and oldest first", () => {
  const open: ProviderServer[] = [];
  const start = async (behaviour: { v2?: boolean } = {}) => {
    const server = await startLangsmithServer(undefined, behaviour);
    open.push(server);
    return { server, adapter: createTraceProvider({ provider: "trace_provider_c", region: "us", baseUrl: server.url }, { api_key: LANGSMITH_KEY }, now) };
  };
  afterAll(() => Promise.all(open.map((server) => server.close())));

  test("every windowed read names both bounds and ascending order, on /v2", async () => {
    const { server, adapter } = await start();
    const page = await adapter.pageTraces({ external_project_id: LANGSMITH_SUPPORT, ...ALL, filters: [], cursor: null, limit: 2 });
    const sent = server.received.at(-1)!;
    expect(sent.path).toBe("/v2/runs/query");
    expect(sent.body).toMatchObject({
      project_ids: [LANGSMITH_SUPPORT],
      is_root: true,
      min_start_time: "2026-11-01T00:00:00.000Z",
      max_start_time: "2026-11-06T00:00:00.000Z",
      sort_order: "ASC",
      page_size: 2,
    });
    expect(page.endpoint).toBe("/v2/runs/query");
    expect(page.endpoint_note).toBeUndefined();
    await adapter.relatedSpans(LANGSMITH_SUPPORT, page.traces[0]!.id, page.traces[0]!.started_at);
    expect(server.received.at(-1)!.body).toMatchObject({ trace_id: page.traces[0]!.id, sort_order: "ASC", min_start_time: expect.any(String) });
  });

  test("the provider's own default is newest first: a window read without an order would start at its end", async () => {
    const { server } = await start();
    const response = await fetch(`${server.url}/v2/runs/query`, {
      method: "POST",
      headers: { "x-api-key": LANGSMITH_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        project_ids: [LANGSMITH_SUPPORT],
        is_root: true,
        min_start_time: "2026-11-01T00:00:00Z",
        max_start_time: "2026-11-06T00:00:00Z",
        page_size: 1,
        selects: ["START_TIME"],
      }),
    });
    const { items } = (await response.json()) as { items: { start_time: string }[] };
    expect(items[0]!.start_time).toBe("2026-11-05T08:00:00.000Z");
  });

  test("a deployment without /v2 is read through the deprecated query, bounded and ascending, and the page says so", async () => {
    const { server, adapter } = await start({ v2: false });
    const { ids } = await readAll(adapter, LANGSMITH_SUPPORT, []);
    expect(ids).toEqual([1, 2, 3, 4, 5].map((n) => `1f0b5a3c-0000-4000-8000-0000000000${n}0`));
    const v1 = server.received.filter((request) => request.path === "/api/v1/runs/query");
    expect(v1.length).toBe(3);
    for (const request of v1) expect(request.body).toMatchObject({ order: "asc", start_time: expect.any(String), end_time: "2026-11-06T00:00:00.000Z" });
    // Only a first page probes /v2; the pages after it continue where they began.
    expect(server.received.filter((request) => request.path === "/v2/runs/query").length).toBe(1);
    const page = await adapter.pageTraces({ external_project_id: LANGSMITH_SUPPORT, ...ALL, filters: [], cursor: null, limit: 2 });
    expect(page.endpoint_note).toContain("deprecated /api/v1/runs/query");
    const answered = server.exchanges.find((exchange) => exchange.request.path === "/api/v1/runs/query")!;
    expect(answered.reply.headers).toMatchObject({ deprecation: "true" });
  });

  test("a query the provider refuses (422: not a UUID) is rejected, with the provider's message and no credential", async () => {
    const { adapter } = await start();
    const error = await adapter.pageTraces({ external_project_id: "not-a-uuid", ...ALL, filters: [], cursor: null, limit: 2 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(TraceProviderError);
    expect(error.kind).toBe("rejected");
    expect(error.message).toContain("HTTP 422: invalid UUID");
    expect(error.message).not.toContain(LANGSMITH_KEY);
  });
});

describe("trace_provider_b: /api/public/v2/observations, and the legacy endpoints only where v2 is not served", () => {
  const open: ProviderServer[] = [];
  const start = async (behaviour: { v2?: boolean; legacy?: "served" | "removed" } = {}) => {
    const server = await startLangfuseServer(undefined, behaviour);
    open.push(server);
    const credentials = { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key };
    return { server, adapter: createTraceProvider({ provider: "trace_provider_b", region: "us", baseUrl: server.url }, credentials, now) };
  };
  afterAll(() => Promise.all(open.map((server) => server.close())));

  test("traces are root observations read with the field groups the mapping needs, rebuilt as Langfuse traces", async () => {
    const { server, adapter } = await start();
    const page = await adapter.pageTraces({
      external_project_id: LANGFUSE_SUPPORT,
      ...ALL,
      filters: [{ path: "tags", op: "in", values: ["vip"] }],
      cursor: null,
      limit: 10,
      metadata_keys: ["user_id"],
    });
    const sent = server.received.at(-1)!;
    expect(sent.path).toBe("/api/public/v2/observations");
    expect(sent.query.get("fields")).toContain("io");
    expect(sent.query.get("fields")).toContain("metadata");
    expect(sent.query.get("expandMetadata")).toBe("user_id");
    expect(JSON.parse(sent.query.get("filter")!)).toEqual([
      { type: "datetime", column: "startTime", operator: ">=", value: "2026-11-01T00:00:00.000Z" },
      { type: "datetime", column: "startTime", operator: "<", value: "2026-11-06T00:00:00.000Z" },
      { type: "boolean", column: "isRootObservation", operator: "=", value: true },
      { type: "arrayOptions", column: "tags", operator: "any of", value: ["vip"] },
    ]);
    expect(page.filter_execution).toBe("before_download");
    expect(page.traces.map((trace) => trace.id)).toEqual(["a1b2c3d4e5f60718293a4b5c6d7e8f01"]);
    // Input and output came as strings; the record holds them parsed, under the trace's names.
    expect(page.traces[0]!.record).toMatchObject({
      id: "a1b2c3d4e5f60718293a4b5c6d7e8f01",
      userId: "u-1",
      input: { messages: [{ role: "user", content: "How do I reset my password?" }] },
      tags: ["prod", "vip"],
    });
  });

  test("metadata equality stays local (partial): a metadata value may be an array", async () => {
    const { adapter } = await start();
    const page = await adapter.pageTraces({
      external_project_id: LANGFUSE_SUPPORT,
      ...ALL,
      filters: [
        { path: "tags", op: "eq", values: ["prod"] },
        { path: "metadata.plan", op: "eq", values: ["beta"] },
      ],
      cursor: null,
      limit: 10,
    });
    expect(page.filter_execution).toBe("partial");
    expect(page.traces.map((trace) => trace.id)).toEqual(["a1b2c3d4e5f60718293a4b5c6d7e8f01"]);
  });

  test("a deployment without v2 (404) is read through the legacy endpoints, and the page says so", async () => {
    const { server, adapter } = await start({ v2: false });
    const { ids } = await readAll(adapter, LANGFUSE_SUPPORT, [{ path: "tags", op: "eq", values: ["prod"] }]);
    expect(ids).toEqual([1, 4, 5].map((n) => `a1b2c3d4e5f60718293a4b5c6d7e8f0${n}`));
    const page = await adapter.pageTraces({ external_project_id: LANGFUSE_SUPPORT, ...ALL, filters: [], cursor: null, limit: 2 });
    expect(page.filter_execution).toBe("after_download");
    expect(page.endpoint_note).toContain("does not serve /api/public/v2/observations");
    expect(server.received.filter((request) => request.path === "/api/public/traces").length).toBeGreaterThan(0);
    const spans = await adapter.relatedSpans(LANGFUSE_SUPPORT, "a1b2c3d4e5f60718293a4b5c6d7e8f01", ALL.start);
    expect(spans.map((span) => span.id)).toEqual(["0000000000010001", "0000000000010002", "0000000000010003"]);
  });

  test("a deployment serving v2 is never sent to the legacy endpoints, even where they are removed", async () => {
    const { server, adapter } = await start({ legacy: "removed" });
    const { ids } = await readAll(adapter, LANGFUSE_SUPPORT, []);
    expect(ids).toHaveLength(5);
    await adapter.relatedSpans(LANGFUSE_SUPPORT, ids[0]!, ALL.start);
    expect(server.received.some((request) => request.path === "/api/public/traces" || request.path === "/api/public/observations")).toBe(false);
  });

  test("one serving neither is not_found with the provider's word, a configuration failure rather than an outage", async () => {
    const { adapter } = await start({ v2: false, legacy: "removed" });
    const error = await adapter.pageTraces({ external_project_id: LANGFUSE_SUPPORT, ...ALL, filters: [], cursor: null, limit: 2 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(TraceProviderError);
    expect(error.kind).toBe("not_found");
    expect(error.message).toContain("HTTP 410: This endpoint has been removed");
    expect(error.message).not.toContain(LANGFUSE_KEYS.secret_key);
  });
});
