import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONNECTION_LIMIT } from "@als/contract";
import { DRAFT_CONNECTION_SECONDS } from "@als/core";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { findTextEverywhere } from "@als/test-support/subject-scan.ts";
import { bearer, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY, BRAINTRUST_SALES_ONLY_KEY } from "@als/test-support/trace-providers/braintrust-server.ts";
import { type DataSourceService, startDataSourceService } from "@als/test-support/trace-providers/data-source-service.ts";
import { LANGFUSE_KEYS } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY, LANGSMITH_WORKSPACE } from "@als/test-support/trace-providers/langsmith-server.ts";

let env: DataSourceService;
let svc: DataSourceService["svc"];
let servers: DataSourceService["servers"];
let owner: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  env = await startDataSourceService("source", { langfuseRegion: "eu" });
  ({ svc, servers, owner, stranger } = env);
}, 120_000);
afterAll(() => env.close());

/** The two prefixes: the key-bound one with a full key, the project one with a dashboard session. */
const PREFIXES = dataSourcePrefixes(() => owner);
type Prefix = DataSourcePrefix;

const PROVIDERS = [
  {
    provider: "trace_provider_a",
    input: { region: "us", api_key: BRAINTRUST_KEY },
    project: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
    workspace: "e2a9c7f0-3b1d-4c5e-8f6a-7b8c9d0e1f07",
    secret: BRAINTRUST_KEY,
    filterExecution: "partial",
  },
  {
    provider: "trace_provider_b",
    input: { region: "eu", api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    project: "cm3x2k9p10001lfsupport001",
    workspace: null,
    secret: LANGFUSE_KEYS.secret_key,
    // Langfuse's v2 filter says the tags, not metadata equality.
    filterExecution: "partial",
  },
  {
    provider: "trace_provider_c",
    input: { region: "us", api_key: LANGSMITH_KEY },
    project: "a3f0c1de-0000-4000-8000-000000000001",
    workspace: LANGSMITH_WORKSPACE,
    secret: LANGSMITH_KEY,
    filterExecution: "after_download",
  },
] as const;

const call = (prefix: Prefix, method: string, path: string, body?: unknown) => svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

async function connect(prefix: Prefix, body: object = { provider: "trace_provider_a", ...PROVIDERS[0].input }) {
  const created = await call(prefix, "POST", "/connections", { name: "traffic", ...body });
  expect(created.status).toBe(201);
  return created.body as { connection_id: string; revision: number };
}

async function deleteAll(prefix: Prefix) {
  for (const connection of (await call(prefix, "GET", "")).body.connections) {
    expect((await call(prefix, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision })).status).toBe(200);
  }
}

for (const prefix of PREFIXES) {
  describe(`connections under ${prefix.name}`, () => {
    for (const source of PROVIDERS) {
      test(`${source.provider}: connect, discover, select a stream, rotate, delete`, async () => {
        const created = await call(prefix, "POST", "/connections", { name: "support traffic", provider: source.provider, ...source.input });
        expect(created.status).toBe(201);
        const connection = created.body;
        expect(connection).toMatchObject({
          name: "support traffic",
          provider: source.provider,
          region: source.input.region,
          revision: 1,
          status: "draft",
          stream_id: null,
        });
        expect(JSON.stringify(connection)).not.toContain(source.secret);
        const id = connection.connection_id;

        // Sealed at rest: the key is nowhere in the database in clear.
        expect(await findTextEverywhere(svc.db, source.secret, { orgId: owner.orgId, projectId: "default" })).toEqual({});

        const discovered = await call(prefix, "GET", `/connections/${id}/projects`);
        expect(discovered.status).toBe(200);
        expect(discovered.body.projects.map((project: { id: string }) => project.id)).toContain(source.project);

        const filters = [
          { path: "metadata.env", op: "eq", values: ["prod"] },
          { path: "tags", op: "in", values: ["a, b", " spaced "] },
        ];
        const selected = await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 1, external_project_id: source.project, filters });
        expect(selected.status).toBe(200);
        expect(selected.body).toMatchObject({
          connection_id: id,
          external_project_id: source.project,
          workspace_id: source.workspace,
          filters,
          filter_execution: source.filterExecution,
          revision: 1,
          status: "draft",
        });

        const read = (await call(prefix, "GET", `/connections/${id}`)).body;
        expect(read).toMatchObject({ revision: 2, stream_id: selected.body.stream_id, external_project_id: source.project, workspace_id: source.workspace });
        const listed = (await call(prefix, "GET", "")).body;
        expect(listed.connections.map((each: { connection_id: string }) => each.connection_id)).toEqual([id]);
        expect(listed.streams).toEqual([selected.body]);
        expect(listed.capabilities.connections_in_use).toBe(1);

        // Reselecting advances both revisions; the stale connection revision is refused.
        const stale = await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 1, external_project_id: source.project, filters: [] });
        expect(stale.status).toBe(409);
        expect(stale.body.detail).toContain("re-read");
        const reselected = await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 2, external_project_id: source.project, filters: [] });
        expect(reselected.body).toMatchObject({ stream_id: selected.body.stream_id, revision: 2, filters: [] });

        const rotated = await call(prefix, "PUT", `/connections/${id}/credential`, { revision: 3, ...credentialFields(source.input) });
        expect(rotated.status).toBe(200);
        expect(rotated.body.revision).toBe(4);
        expect((await call(prefix, "PUT", `/connections/${id}/credential`, { revision: 3, ...credentialFields(source.input) })).status).toBe(409);

        expect((await call(prefix, "DELETE", `/connections/${id}`, { revision: 3 })).status).toBe(409);
        expect((await call(prefix, "GET", `/connections/${id}`)).status).toBe(200);
        const deleted = await call(prefix, "DELETE", `/connections/${id}`, { revision: 4 });
        expect(deleted).toEqual({ status: 200, body: { deleted: true } });
        expect((await call(prefix, "GET", `/connections/${id}`)).status).toBe(404);
        expect((await call(prefix, "GET", "")).body.streams).toEqual([]);
      });
    }

    test("the collection lists every provider's capabilities and the limit", async () => {
      const { body } = await call(prefix, "GET", "");
      expect(body.capabilities.connection_limit).toBe(CONNECTION_LIMIT);
      expect(body.capabilities.providers.map((each: { provider: string; regions: string[] }) => [each.provider, each.regions])).toEqual([
        ["trace_provider_a", ["us"]],
        ["trace_provider_b", ["us", "eu", "jp", "hipaa-us"]],
        ["trace_provider_c", ["us", "eu"]],
      ]);
      expect(body.capabilities.filter_ops).toEqual(["eq", "in", "exists"]);
    });
  });
}

const credentialFields = (input: { api_key: string; public_key?: string }) => ({
  api_key: input.api_key,
  ...(input.public_key && { public_key: input.public_key }),
});

describe("connection input", () => {
  const prefix = PREFIXES[0]!;

  test.each([
    ["an unknown provider", { provider: "trace_provider_z", api_key: "k" }, "provider"],
    ["a region the provider does not serve", { provider: "trace_provider_a", region: "eu", api_key: "k" }, "region"],
    ["trace_provider_b without its public key", { provider: "trace_provider_b", region: "eu", api_key: "k" }, "public_key"],
    ["a public key for trace_provider_a", { provider: "trace_provider_a", api_key: "k", public_key: "p" }, "public_key"],
    ["a workspace for trace_provider_b", { provider: "trace_provider_b", region: "eu", api_key: "k", public_key: "p", workspace_id: "w" }, "workspace_id"],
    ["a private endpoint", { provider: "trace_provider_a", api_key: "k", base_url: "http://10.0.0.1" }, "base_url"],
    ["an empty api key", { provider: "trace_provider_a", api_key: " " }, "api_key"],
    ["no name", { name: "", provider: "trace_provider_a", api_key: "k" }, "name"],
  ])("%s answers 422 naming the field, and nothing is stored", async (_name, body, field) => {
    const before = servers.a.received.length;
    const response = await call(prefix, "POST", "/connections", { name: "x", ...body });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.body.detail)).toContain(field);
    expect(servers.a.received.length).toBe(before);
    expect((await call(prefix, "GET", "")).body.connections).toEqual([]);
  });

  test("provider and region default to trace_provider_a in us", async () => {
    const created = await call(prefix, "POST", "/connections", { name: "defaults", api_key: BRAINTRUST_KEY });
    expect(created.body).toMatchObject({ provider: "trace_provider_a", region: "us" });
    await deleteAll(prefix);
  });

  test("a credential the provider refuses answers 422 naming api_key, and nothing is stored", async () => {
    const response = await call(prefix, "POST", "/connections", { name: "x", provider: "trace_provider_a", api_key: "sk-not-a-key" });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body", "api_key"]);
    expect(JSON.stringify(response.body)).not.toContain("sk-not-a-key");
    expect((await call(prefix, "GET", "")).body.connections).toEqual([]);
  });

  test("a provider rate limit longer than we wait answers 503 provider_unavailable with retry_at", async () => {
    servers.a.rateLimitNext(1, "600");
    const response = await call(prefix, "POST", "/connections", { name: "x", provider: "trace_provider_a", api_key: BRAINTRUST_KEY });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: "provider_unavailable", reason: "rate_limited" });
    expect(response.body.retry_at).toBeGreaterThanOrEqual(svc.clock.now + 590);
    expect((await call(prefix, "GET", "")).body.connections).toEqual([]);
  });

  test("a stream on a project the credential does not reach answers 422 naming external_project_id", async () => {
    const connection = await connect(prefix);
    const response = await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: "someone-elses" });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body", "external_project_id"]);
    expect((await call(prefix, "GET", `/connections/${connection.connection_id}`)).body.revision).toBe(1);
    await deleteAll(prefix);
  });

  test("a rotated key must reach the selected project (422 naming api_key), and the connection keeps its old one", async () => {
    const connection = await connect(prefix);
    const id = connection.connection_id;
    expect((await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 1, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01" })).status).toBe(
      200,
    );
    const refused = await call(prefix, "PUT", `/connections/${id}/credential`, { revision: 2, api_key: BRAINTRUST_SALES_ONLY_KEY });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ["body", "api_key"] });
    expect(refused.body.detail[0].msg).toContain("7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01");
    expect((await call(prefix, "GET", `/connections/${id}`)).body.revision).toBe(2);
    expect((await call(prefix, "GET", `/connections/${id}/projects`)).status).toBe(200);
    // The reached project may be reselected, then the narrower key is accepted.
    expect((await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 2, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02" })).status).toBe(
      200,
    );
    const rotated = await call(prefix, "PUT", `/connections/${id}/credential`, { revision: 3, api_key: BRAINTRUST_SALES_ONLY_KEY });
    expect(rotated.status).toBe(200);
    const rediscovered = await call(prefix, "GET", `/connections/${id}/projects`);
    expect(rediscovered.body.projects.map((project: { id: string }) => project.id)).toEqual(["7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02"]);
    await deleteAll(prefix);
  });

  test("rotation takes the provider's credential fields (422 naming public_key)", async () => {
    const connection = await connect(prefix, { provider: "trace_provider_b", ...PROVIDERS[1].input });
    const response = await call(prefix, "PUT", `/connections/${connection.connection_id}/credential`, { revision: 1, api_key: "sk-lf-new" });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(["body", "public_key"]);
    await deleteAll(prefix);
  });

  // After the rotation test: it revokes the key that one used.
  test("a stored credential the provider stopped accepting answers 503 saying to rotate it; a rotation recovers", async () => {
    const connection = await connect(prefix, { provider: "trace_provider_a", api_key: BRAINTRUST_SALES_ONLY_KEY });
    const id = connection.connection_id;
    expect((await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 1, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02" })).status).toBe(
      200,
    );
    servers.a.revoke(BRAINTRUST_SALES_ONLY_KEY);
    const refused = await call(prefix, "GET", `/connections/${id}/projects`);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: "provider_unavailable", reason: "credential_refused" });
    expect(refused.body.detail).toContain("rotate");
    expect((await call(prefix, "PUT", `/connections/${id}/stream`, { revision: 2, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02" })).status).toBe(
      503,
    );
    expect((await call(prefix, "PUT", `/connections/${id}/credential`, { revision: 2, api_key: BRAINTRUST_KEY })).status).toBe(200);
    expect((await call(prefix, "GET", `/connections/${id}/projects`)).status).toBe(200);
    await deleteAll(prefix);
  });

  test("unknown connections answer 404", async () => {
    for (const [method, path, body] of [
      ["GET", "/connections/dsc_nope", undefined],
      ["GET", "/connections/dsc_nope/projects", undefined],
      ["PUT", "/connections/dsc_nope/credential", { revision: 1, api_key: "k" }],
      ["PUT", "/connections/dsc_nope/stream", { revision: 1, external_project_id: "p" }],
      ["DELETE", "/connections/dsc_nope", { revision: 1 }],
    ] as const) {
      expect((await call(prefix, method, path, body)).status).toBe(404);
    }
  });
});

describe("filters", () => {
  const prefix = PREFIXES[0]!;
  let id: string;
  beforeAll(async () => {
    id = (await connect(prefix)).connection_id;
  });
  afterAll(() => deleteAll(prefix));

  const valid = { path: "metadata.env", op: "eq", values: ["prod"] };
  test.each([
    ["a path outside metadata.*, span_attributes.name and tags", [valid, { path: "input.text", op: "exists" }], "filters[1].path"],
    ["a bare metadata path", [{ path: "metadata", op: "exists" }], "filters[0].path"],
    ["an unknown op", [{ path: "tags", op: "contains", values: ["x"] }], "filters[0].op"],
    ["eq with two values", [valid, valid, { path: "tags", op: "eq", values: ["a", "b"] }], "filters[2].values"],
    ["eq without a value", [{ path: "tags", op: "eq", values: [] }], "filters[0].values"],
    ["in without values", [{ path: "tags", op: "in", values: [] }], "filters[0].values"],
    ["in with 21 values", [{ path: "tags", op: "in", values: Array.from({ length: 21 }, (_, i) => `v${i}`) }], "filters[0].values"],
    ["exists with a value", [valid, { path: "metadata.env", op: "exists", values: ["prod"] }], "filters[1].values"],
    ["an empty value", [{ path: "metadata.env", op: "eq", values: [""] }], "filters[0].values[0]"],
    ["a value of 513 characters", [{ path: "metadata.env", op: "in", values: ["ok", "x".repeat(513)] }], "filters[0].values[1]"],
    ["a tags value of 161 characters", [{ path: "tags", op: "eq", values: ["t".repeat(161)] }], "filters[0].values[0]"],
    ["a number instead of its string form", [{ path: "metadata.tier", op: "eq", values: [3] }], "filters[0].values[0]"],
    ["an unknown filter field", [{ ...valid, negate: true }], "filters[0]"],
    ["eleven filters", Array.from({ length: 11 }, () => valid), "filters"],
  ])("%s answers 422 naming the filter index, and the stream does not change", async (_name, filters, field) => {
    const before = (await call(prefix, "GET", `/connections/${id}`)).body;
    const response = await call(prefix, "PUT", `/connections/${id}/stream`, {
      revision: before.revision,
      external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
      filters,
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
    expect((await call(prefix, "GET", `/connections/${id}`)).body).toEqual(before);
  });

  test("the limits themselves are accepted: ten filters, 20 values, 512 and 160 characters, exists without values", async () => {
    const filters = [
      { path: "tags", op: "in", values: Array.from({ length: 20 }, (_, i) => `t${i}`) },
      { path: "metadata.a", op: "eq", values: ["x".repeat(512)] },
      { path: "tags", op: "eq", values: ["t".repeat(160)] },
      { path: "span_attributes.name", op: "eq", values: ["chat"] },
      { path: "metadata.nested.key", op: "exists" },
      ...Array.from({ length: 5 }, (_, i) => ({ path: `metadata.k${i}`, op: "exists", values: [] })),
    ];
    const { revision } = (await call(prefix, "GET", `/connections/${id}`)).body;
    const response = await call(prefix, "PUT", `/connections/${id}/stream`, { revision, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01", filters });
    expect(response.status).toBe(200);
    expect(response.body.filters).toHaveLength(10);
    expect(response.body.filters[4]).toEqual({ path: "metadata.nested.key", op: "exists", values: [] });
  });

  test("trace_provider_a reports before_download when every filter is pushed down", async () => {
    const { revision } = (await call(prefix, "GET", `/connections/${id}`)).body;
    const response = await call(prefix, "PUT", `/connections/${id}/stream`, {
      revision,
      external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
      filters: [{ path: "tags", op: "eq", values: ["prod"] }],
    });
    expect(response.body.filter_execution).toBe("before_download");
  });
});

describe("setup-context", () => {
  const FIELDS = [
    "setup_version",
    "api_base_path",
    "destination_binding",
    "project_id",
    "providers",
    "provider_regions",
    "connection_limit",
    "connection_id",
    "stream_id",
    "review_path",
    "activation",
    "traffic_filter_pushdown",
    "provider_filter_execution",
    "traffic_filter_contract",
    "mapping_schema",
    "mapping_scopes",
    "mapping_versions",
    "related_span_layouts",
    "related_span_correlations",
    "related_span_limits",
    "related_span_fetch",
    "sibling_joins",
    "sampling",
    "field_guidance",
    "identity_checks",
    "mapping_aware_reads",
    "automatic_read_retries",
    "shared_connection_cooldown",
    "historical_read_windows",
    "backfill_limit",
  ];

  for (const prefix of PREFIXES) {
    test(`under ${prefix.name}: every field, the sole connection selected, an unknown explicit one 404`, async () => {
      const empty = await call(prefix, "GET", "/setup-context");
      expect(empty.status).toBe(200);
      expect(Object.keys(empty.body).sort()).toEqual([...FIELDS].sort());
      expect(empty.body).toMatchObject({ api_base_path: prefix.base, project_id: "default", connection_id: null, stream_id: null, review_path: null });
      expect(empty.body.destination_binding.kind).toBe(prefix.base === "/api/data-sources" ? "api_key_project" : "url_project");

      const sole = await connect(prefix);
      await call(prefix, "PUT", `/connections/${sole.connection_id}/stream`, { revision: 1, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01" });
      const selected = (await call(prefix, "GET", "/setup-context")).body;
      expect(selected.connection_id).toBe(sole.connection_id);
      expect(selected.stream_id).toBe((await call(prefix, "GET", `/connections/${sole.connection_id}`)).body.stream_id);
      expect(selected.connection_limit).toMatchObject({ limit: CONNECTION_LIMIT, in_use: 1 });

      const second = await connect(prefix);
      expect((await call(prefix, "GET", "/setup-context")).body.connection_id).toBeNull();
      expect((await call(prefix, "GET", `/setup-context?connection_id=${second.connection_id}`)).body.connection_id).toBe(second.connection_id);
      const unknown = await call(prefix, "GET", "/setup-context?connection_id=dsc_unknown");
      expect(unknown.status).toBe(404);
      expect(unknown.body.detail).toContain("dsc_unknown");
      expect((await call(prefix, "GET", "/setup-context?connection_id=")).status).toBe(422);
      await deleteAll(prefix);
    });
  }

  test("another organisation's explicit connection_id is unknown (404)", async () => {
    const mine = await connect(PREFIXES[0]!);
    const theirs = await svc.call("GET", `/api/data-sources/setup-context?connection_id=${mine.connection_id}`, undefined, bearer(stranger.fullKey));
    expect(theirs.status).toBe(404);
    await deleteAll(PREFIXES[0]!);
  });
});

describe("credentials and projects", () => {
  test("a limited API key cannot manage sources (403)", async () => {
    const response = await svc.call("GET", "/api/data-sources", undefined, bearer(owner.limitedKey));
    expect(response.status).toBe(403);
  });

  test("a dashboard session cannot use the key-bound prefix (403)", async () => {
    expect((await svc.call("GET", "/api/data-sources", undefined, bearer(owner.loginSession))).status).toBe(403);
  });

  test("the project prefix needs X-Service-Project equal to the URL's project (403)", async () => {
    expect((await svc.call("GET", "/api/projects/default/data-sources", undefined, bearer(owner.loginSession))).status).toBe(403);
    expect(
      (await svc.call("GET", "/api/projects/default/data-sources", undefined, { ...bearer(owner.loginSession), "x-service-project": "other" })).status,
    ).toBe(403);
  });

  test("an API key cannot reach another project through the project prefix (403)", async () => {
    const created = await svc.call("POST", "/api/account/projects", { project_id: "second", name: "Second" }, bearer(owner.loginSession));
    expect(created.status).toBe(201);
    const response = await svc.call("GET", "/api/projects/second/data-sources", undefined, { ...bearer(owner.fullKey), "x-service-project": "second" });
    expect(response.status).toBe(403);
    const asSession = await svc.call("GET", "/api/projects/second/data-sources", undefined, { ...bearer(owner.loginSession), "x-service-project": "second" });
    expect(asSession.status).toBe(200);
    expect(asSession.body.connections).toEqual([]);
  });

  test("another organisation's credentials reach none of a connection (404), and change nothing", async () => {
    const mine = PREFIXES[0]!;
    const connection = await connect(mine);
    const id = connection.connection_id;
    expect((await call(mine, "PUT", `/connections/${id}/stream`, { revision: 1, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01" })).status).toBe(
      200,
    );
    const before = (await call(mine, "GET", `/connections/${id}`)).body;
    const theirs = [
      { base: "/api/data-sources", headers: bearer(stranger.fullKey) },
      { base: "/api/projects/default/data-sources", headers: { ...bearer(stranger.loginSession), "x-service-project": "default" } },
    ];
    for (const { base, headers } of theirs) {
      for (const [method, path, body] of [
        ["GET", `/connections/${id}`, undefined],
        ["GET", `/connections/${id}/projects`, undefined],
        ["PUT", `/connections/${id}/credential`, { revision: 2, api_key: BRAINTRUST_KEY }],
        ["PUT", `/connections/${id}/stream`, { revision: 2, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02" }],
        ["DELETE", `/connections/${id}`, { revision: 2 }],
      ] as const) {
        expect((await svc.call(method, `${base}${path}`, body, headers)).status).toBe(404);
      }
      expect((await svc.call("GET", base, undefined, headers)).body.connections).toEqual([]);
    }
    expect((await call(mine, "GET", `/connections/${id}`)).body).toEqual(before);
    await deleteAll(mine);
  });
});

describe("the connection limit", () => {
  // The key-bound prefix: moving the clock past a draft's expiry also ends dashboard sessions.
  const prefix = PREFIXES[0]!;

  test(`a project holds ${CONNECTION_LIMIT} connections, setup drafts included; an expired draft gives its slot back`, async () => {
    for (let i = 0; i < CONNECTION_LIMIT; i++) await connect(prefix);
    const refused = await call(prefix, "POST", "/connections", { name: "one more", api_key: BRAINTRUST_KEY });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("limit");
    // The other prefix is the same project: the same slots.
    expect((await call(PREFIXES[1]!, "POST", "/connections", { name: "one more", api_key: BRAINTRUST_KEY })).status).toBe(409);
    svc.clock.now += DRAFT_CONNECTION_SECONDS;
    expect((await call(prefix, "GET", "")).body.connections).toEqual([]);
    await connect(prefix);
    expect((await call(prefix, "GET", "")).body.capabilities.connections_in_use).toBe(1);
    await deleteAll(prefix);
  });
});
