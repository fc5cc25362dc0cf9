import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { bearer, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY } from "@als/test-support/trace-providers/braintrust-server.ts";
import { type DataSourceService, startDataSourceService } from "@als/test-support/trace-providers/data-source-service.ts";
import { LANGFUSE_KEYS } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY } from "@als/test-support/trace-providers/langsmith-server.ts";

let env: DataSourceService;
let svc: DataSourceService["svc"];
let servers: DataSourceService["servers"];
let owner: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  env = await startDataSourceService("samples");
  ({ svc, servers, owner, stranger } = env);
}, 120_000);
afterAll(() => env.close());

const PREFIXES = dataSourcePrefixes(() => owner);
const call = (prefix: DataSourcePrefix, method: string, path: string, body?: unknown) => svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

// A project holds ten connections: each test gives back the ones it made.
afterEach(async () => {
  for (const connection of (await call(PREFIXES[0]!, "GET", "")).body.connections) {
    await call(PREFIXES[0]!, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision });
  }
});

const SOURCES = [
  { provider: "trace_provider_a", credentials: { api_key: BRAINTRUST_KEY }, project: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01", buckets: 7, spans: 2 },
  {
    provider: "trace_provider_b",
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    project: "cm3x2k9p10001lfsupport001",
    buckets: 0,
    // The root observation (the trace) and its generation.
    spans: 2,
  },
  { provider: "trace_provider_c", credentials: { api_key: LANGSMITH_KEY }, project: "a3f0c1de-0000-4000-8000-000000000001", buckets: 0, spans: 2 },
] as const;
/** The fixtures' traffic: five traces between Nov 1 and Nov 5, 2026. */
const WINDOW = { start: "2026-11-01T00:00:00Z", end: "2026-11-06T00:00:00+00:00" };

async function streamOf(prefix: DataSourcePrefix, source: (typeof SOURCES)[number], filters: object[] = []) {
  const connection = await call(prefix, "POST", "/connections", { name: "sampled", provider: source.provider, region: "us", ...source.credentials });
  expect(connection.status).toBe(201);
  const stream = await call(prefix, "PUT", `/connections/${connection.body.connection_id}/stream`, {
    revision: 1,
    external_project_id: source.project,
    filters,
  });
  expect(stream.status).toBe(200);
  return { connection: connection.body, stream: stream.body };
}

async function sampled(prefix: DataSourcePrefix, streamId: string, body: object) {
  const accepted = await call(prefix, "POST", `/streams/${streamId}/samples`, body);
  expect(accepted.status).toBe(202);
  expect(accepted.body).toMatchObject({ status: "in_progress", records: [], stream_id: streamId });
  await svc.learningIdle();
  return (await call(prefix, "GET", `/samples/${accepted.body.sample_id}`)).body;
}

for (const prefix of PREFIXES) {
  describe(`samples under ${prefix.name}`, () => {
    for (const source of SOURCES) {
      test(`${source.provider}: a sample reads the window's traces with their spans, as a durable step`, async () => {
        const { stream } = await streamOf(prefix, source);
        const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
        expect(sample).toMatchObject({ status: "complete", record_count: 5, truncated: false, code: null, stream_revision: stream.revision });
        expect(sample.sample_window).toEqual({ start: "2026-11-01T00:00:00.000Z", end: "2026-11-06T00:00:00.000Z" });
        expect(sample.records.every((record: { spans: unknown[]; trace: unknown }) => record.spans.length >= source.spans && record.trace !== null)).toBe(true);
        // The first trace's agent also retrieved articles and called a tool: two more spans.
        expect(sample.records.reduce((sum: number, record: { spans: unknown[] }) => sum + record.spans.length, 0)).toBe(5 * source.spans + 2);
        expect(sample.buckets).toHaveLength(source.buckets);
        if (source.buckets > 0) expect(sample.buckets.reduce((sum: number, bucket: { records: number }) => sum + bucket.records, 0)).toBe(5);
        expect(sample.expires_at).toBe(sample.created_at + 86_400);
        const listed = (await call(prefix, "GET", "")).body.samples;
        expect(listed.map((summary: { sample_id: string }) => summary.sample_id)).toEqual([sample.sample_id]);
        expect(listed[0].records).toBeUndefined();
      });
    }

    test("the stream's filters select what is sampled", async () => {
      const { stream } = await streamOf(prefix, SOURCES[2], [{ path: "metadata.env", op: "eq", values: ["prod"] }]);
      const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
      expect(sample.records.map((record: { trace_id: string }) => record.trace_id)).toEqual([
        "1f0b5a3c-0000-4000-8000-000000000010",
        "1f0b5a3c-0000-4000-8000-000000000040",
        "1f0b5a3c-0000-4000-8000-000000000050",
      ]);
      expect(sample.coverage).toMatchObject({ filter_execution: "after_download", records: 3 });
    });
  });
}

describe("sample rules", () => {
  const prefix = PREFIXES[0]!;

  test.each([
    ["a window without a time zone", { sample_window: { start: "2026-11-01T00:00:00", end: "2026-11-02T00:00:00Z" } }, "sample_window.start"],
    ["a window ending before it starts", { sample_window: { start: "2026-11-02T00:00:00Z", end: "2026-11-01T00:00:00Z" } }, "sample_window.end"],
    ["a date without a time", { sample_window: { start: "2026-11-01", end: "2026-11-02T00:00:00Z" } }, "sample_window.start"],
    ["an unknown field", { sample_window: WINDOW, limit: 10 }, "limit"],
  ])("%s answers 422 naming the field, and no sample is made", async (_name, body, field) => {
    const { stream } = await streamOf(prefix, SOURCES[0]);
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, ...body });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
    expect((await call(prefix, "GET", "")).body.samples).toEqual([]);
  });

  test("an example over 64 KB keeps its trace and drops its spans; the sample says it was truncated", async () => {
    const connection = await call(prefix, "POST", "/connections", { name: "large", provider: "trace_provider_c", region: "us", api_key: LANGSMITH_KEY });
    const stream = await call(prefix, "PUT", `/connections/${connection.body.connection_id}/stream`, {
      revision: 1,
      external_project_id: "a3f0c1de-0000-4000-8000-000000000002",
    });
    const sample = await sampled(prefix, stream.body.stream_id, { revision: stream.body.revision, sample_window: WINDOW });
    expect(sample).toMatchObject({ status: "complete", record_count: 1, truncated: true });
    expect(sample.records[0]).toMatchObject({ trace_id: "1f0b5a3c-0000-4000-8000-000000000060", spans: [], truncated: true });
    expect(sample.records[0].trace.outputs).toEqual({ output: "Hi!" });
  });

  test("a stale stream revision answers 409, and no sample is made", async () => {
    const { stream } = await streamOf(prefix, SOURCES[0]);
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision + 1 });
    expect(response.status).toBe(409);
    expect(response.body.detail).toContain("re-read");
    expect((await call(prefix, "GET", "")).body.samples).toEqual([]);
  });

  test("a request retried with its Idempotency-Key makes one sample and answers as the first; another body answers 422", async () => {
    const { stream } = await streamOf(prefix, SOURCES[0]);
    const send = (body: object) =>
      svc.call("POST", `${prefix.base}/streams/${stream.stream_id}/samples`, body, { ...prefix.headers(), "idempotency-key": "sample-once" });
    const first = await send({ revision: stream.revision, sample_window: WINDOW });
    expect(first.status).toBe(202);
    expect(await send({ revision: stream.revision, sample_window: WINDOW })).toEqual(first);
    const refused = await send({ revision: stream.revision });
    expect([refused.status, refused.body.error]).toEqual([422, "idempotency_key_reused"]);
    expect((await call(prefix, "GET", "")).body.samples.map((sample: { sample_id: string }) => sample.sample_id)).toEqual([first.body.sample_id]);
    await svc.learningIdle();
  });

  test("a provider that keeps rate-limiting fails the sample with its code and retry_at", async () => {
    const { stream } = await streamOf(prefix, SOURCES[0]);
    servers.a.rateLimitNext(1, "3600");
    const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
    expect(sample).toMatchObject({ status: "failed", code: "provider_rate_limited", records: [] });
    expect(sample.retry_at).toBeGreaterThanOrEqual(svc.clock.now + 3590);
  });

  test("a rate limit within our wait is waited out, and the sample completes", async () => {
    const { stream } = await streamOf(prefix, SOURCES[1]);
    servers.b.rateLimitNext(1, "1");
    const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
    expect(sample).toMatchObject({ status: "complete", record_count: 5 });
  });

  test("credential rotation invalidates the stream's samples", async () => {
    const { connection, stream } = await streamOf(prefix, SOURCES[0]);
    const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
    expect(sample.status).toBe("complete");
    const current = (await call(prefix, "GET", `/connections/${connection.connection_id}`)).body;
    expect(
      (await call(prefix, "PUT", `/connections/${connection.connection_id}/credential`, { revision: current.revision, api_key: BRAINTRUST_KEY })).status,
    ).toBe(200);
    expect((await call(prefix, "GET", `/samples/${sample.sample_id}`)).body).toMatchObject({ status: "failed", code: "invalidated_by_rotation", records: [] });
  });

  test("unknown samples and streams answer 404; another organisation's credentials reach none of them", async () => {
    const { stream } = await streamOf(prefix, SOURCES[0]);
    const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
    expect((await call(prefix, "GET", "/samples/dsm_nope")).status).toBe(404);
    expect((await call(prefix, "POST", "/streams/dss_nope/samples", { revision: 1 })).status).toBe(404);
    for (const [base, headers] of [
      ["/api/data-sources", bearer(stranger.fullKey)],
      ["/api/projects/default/data-sources", { ...bearer(stranger.loginSession), "x-service-project": "default" }],
    ] as const) {
      expect((await svc.call("GET", `${base}/samples/${sample.sample_id}`, undefined, headers)).status).toBe(404);
      expect((await svc.call("POST", `${base}/streams/${stream.stream_id}/samples`, { revision: stream.revision }, headers)).status).toBe(404);
    }
    expect((await call(prefix, "GET", "")).body.samples).toHaveLength(1);
  });

  // Last: moving the clock past a day also ends the dashboard sessions of this file.
  test("a sample expires 24 hours after it was made: its records are withheld", async () => {
    const { stream } = await streamOf(prefix, SOURCES[0]);
    const sample = await sampled(prefix, stream.stream_id, { revision: stream.revision, sample_window: WINDOW });
    svc.clock.now += 86_400;
    expect((await call(prefix, "GET", `/samples/${sample.sample_id}`)).body).toMatchObject({ status: "expired", records: [], record_count: 0 });
  });
});
