import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTraceProvider, type ProviderName, type TraceFilter, type TraceProvider } from "@als/core";
import { BRAINTRUST_KEY, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import { LANGFUSE_KEYS, startLangfuseServer } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY, LANGSMITH_WORKSPACE, startLangsmithServer } from "@als/test-support/trace-providers/langsmith-server.ts";
import { type DefinitionCheck, loadProviderDefinition } from "@als/test-support/trace-providers/provider-definitions.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";

/**
 * The protocol servers held to the providers' own OpenAPI definitions (../shared/providers/): every
 * request the adapters send and every answer the servers give is validated against the operation
 * it names. A server or an adapter that leaves the definition fails here.
 */
const now = () => Math.floor(Date.now() / 1000);
const unix = (iso: string) => Date.parse(iso) / 1000;
const ALL = { start: unix("2026-11-01T00:00:00Z"), end: unix("2026-11-06T00:00:00Z") };
const FILTERS: TraceFilter[][] = [
  [],
  [{ path: "tags", op: "in", values: ["prod", "vip"] }],
  [{ path: "metadata.env", op: "eq", values: ["prod"] }],
  [{ path: "span_attributes.name", op: "eq", values: ["chat"] }],
  [{ path: "metadata.env", op: "exists", values: [] }],
];

interface Case {
  provider: ProviderName;
  /** The deployments the adapter is walked through: the current API, and the older one it falls back to. */
  servers: Record<string, () => Promise<ProviderServer>>;
  credentials: { api_key: string; public_key?: string; workspace_id?: string };
  wrong: { api_key: string; public_key?: string };
  /** Requests validated at least (Braintrust's BTQL is documented outside its definition). */
  least: number;
}

const CASES: Case[] = [
  {
    provider: "trace_provider_a",
    servers: { current: () => startBraintrustServer(), "pages cut by size": () => startBraintrustServer(undefined, { pageBytes: 1500 }) },
    credentials: { api_key: BRAINTRUST_KEY },
    wrong: { api_key: "sk-wrong" },
    least: 4,
  },
  {
    provider: "trace_provider_b",
    servers: { current: () => startLangfuseServer(), "without v2": () => startLangfuseServer(undefined, { v2: false }) },
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    wrong: { api_key: "sk-lf-wrong", public_key: LANGFUSE_KEYS.public_key },
    least: 40,
  },
  {
    provider: "trace_provider_c",
    servers: { current: () => startLangsmithServer(), "without v2": () => startLangsmithServer(undefined, { v2: false }) },
    credentials: { api_key: LANGSMITH_KEY, workspace_id: LANGSMITH_WORKSPACE },
    wrong: { api_key: "lsv2_wrong" },
    least: 40,
  },
];

/** Everything an adapter does: discovery, every page of every filter, the spans of every trace read. */
async function exercise(adapter: TraceProvider): Promise<void> {
  const projects = await adapter.discoverProjects();
  for (const project of projects) {
    for (const filters of FILTERS) {
      for (let cursor: string | null = null, pages = 0; pages === 0 || (cursor !== null && pages < 20); pages++) {
        const page = await adapter.pageTraces({ external_project_id: project.id, ...ALL, filters, cursor, limit: 2 });
        for (const trace of page.traces) await adapter.relatedSpans(project.id, trace.id, trace.started_at);
        cursor = page.next_cursor;
      }
    }
  }
}

const counts: Record<string, DefinitionCheck> = {};

for (const c of CASES) {
  describe(`${c.provider}: the protocol server and the adapter against the provider's definition`, () => {
    let definition: Awaited<ReturnType<typeof loadProviderDefinition>>;
    const servers: ProviderServer[] = [];
    beforeAll(async () => {
      definition = await loadProviderDefinition(c.provider);
    });
    afterAll(() => Promise.all(servers.map((server) => server.close())));

    test("every request sent and every answer given conforms, on every deployment the adapter reads", async () => {
      for (const start of Object.values(c.servers)) {
        const server = await start();
        servers.push(server);
        const connect = (credentials: Case["credentials"]) =>
          createTraceProvider({ provider: c.provider, region: "us", baseUrl: server.url }, credentials, now);
        await exercise(connect(c.credentials));
        await connect(c.wrong)
          .discoverProjects()
          .catch(() => {});
      }
      const check = definition.check(servers.flatMap((server) => server.exchanges));
      counts[c.provider] = check;
      expect(check.violations).toEqual([]);
      expect(check.requests).toBeGreaterThanOrEqual(c.least);
      expect(check.responses).toBeGreaterThanOrEqual(c.least);
    });

    test("an answer or a request that leaves the definition is caught", () => {
      const good = servers[0]!.exchanges.find((exchange) => exchange.reply.status === 200 && definition.check([exchange]).responses === 1)!;
      const answers = [{ unexpected: true, data: "not a list", objects: 7, items: 7, runs: 7 }, [{ id: 7 }]];
      for (const body of answers) {
        const check = definition.check([{ request: good.request, reply: { status: 200, body } }]);
        expect(check.violations.length + check.responses).toBe(1);
      }
      expect(answers.some((body) => definition.check([{ request: good.request, reply: { status: 200, body } }]).violations.length === 1)).toBe(true);
      const elsewhere = definition.check([{ request: { ...good.request, path: "/api/v9/nowhere" }, reply: good.reply }]);
      expect(elsewhere.violations).toEqual(["GET /api/v9/nowhere: no such operation in the definition".replace("GET", good.request.method)]);
    });
  });
}

afterAll(() => {
  for (const [provider, check] of Object.entries(counts)) {
    console.log(
      `${provider}: ${check.requests} requests and ${check.responses} answers validated, ${check.unschemed} answers of unlisted status, ${check.outside} outside the definition`,
    );
  }
});
