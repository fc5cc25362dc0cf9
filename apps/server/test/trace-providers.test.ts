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
import { BRAINTRUST_KEY, startBraintrustServer } from "../../../test/support/trace-providers/braintrust-server.ts";
import { LANGFUSE_KEYS, startLangfuseServer } from "../../../test/support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY, LANGSMITH_WORKSPACE, startLangsmithServer } from "../../../test/support/trace-providers/langsmith-server.ts";
import type { ProviderServer } from "../../../test/support/trace-providers/provider-server.ts";

const now = () => Math.floor(Date.now() / 1000);
const unix = (iso: string) => Date.parse(iso) / 1000;
/** The fixtures' traffic: five traces of the support project between Nov 1 and Nov 5, 2026. */
const ALL = { start: unix("2026-11-01T00:00:00Z"), end: unix("2026-11-06T00:00:00Z") };

interface Case {
  provider: ProviderName;
  start: () => Promise<ProviderServer>;
  credentials: { api_key: string; public_key?: string; workspace_id?: string };
  badCredentials: { api_key: string; public_key?: string };
  project: string;
  workspace: string | null;
  projectNames: string[];
  /** The provider's id of the fixture trace `t<n>`. */
  traceId: (n: number) => string;
  filterExecution: "after_download" | "before_download";
  /** Spans of a fixture trace: Braintrust and LangSmith count the root span, Langfuse's trace is not an observation. */
  spansPerTrace: number;
}

const CASES: Case[] = [
  {
    provider: "trace_provider_a",
    start: startBraintrustServer,
    credentials: { api_key: BRAINTRUST_KEY },
    badCredentials: { api_key: "sk-wrong" },
    project: "0b1e5c2a-support",
    workspace: "bt-org-7",
    projectNames: ["support-bot", "sales-bot"],
    traceId: (n) => `t${n}-root`,
    filterExecution: "before_download",
    spansPerTrace: 2,
  },
  {
    provider: "trace_provider_b",
    start: startLangfuseServer,
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    badCredentials: { api_key: "sk-lf-wrong", public_key: LANGFUSE_KEYS.public_key },
    project: "lf-proj-1",
    workspace: null,
    projectNames: ["support-bot"],
    traceId: (n) => `lf-t${n}`,
    filterExecution: "after_download",
    spansPerTrace: 1,
  },
  {
    provider: "trace_provider_c",
    start: startLangsmithServer,
    credentials: { api_key: LANGSMITH_KEY },
    badCredentials: { api_key: "lsv2_wrong" },
    project: "a3f0c1de-0000-4000-8000-000000000001",
    workspace: LANGSMITH_WORKSPACE,
    projectNames: ["support-bot", "sales-bot"],
    traceId: (n) => `ls-t${n}`,
    filterExecution: "after_download",
    spansPerTrace: 2,
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
    const t = (...numbers: number[]) => numbers.map(c.traceId);

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
      const spans = await adapter.relatedSpans(c.project, c.traceId(1));
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
      external_project_id: "0b1e5c2a-support",
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
    expect(page.traces.map((trace) => trace.id)).toEqual(["t1-root", "t4-root", "t5-root"]);
  });

  test("metadata equality stays local (partial), a value with a quote too", async () => {
    const partial = await adapter.pageTraces({
      external_project_id: "0b1e5c2a-support",
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
    expect(partial.traces.map((trace) => trace.id)).toEqual(["t5-root"]);
    const quoted = await adapter.pageTraces({
      external_project_id: "0b1e5c2a-support",
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
