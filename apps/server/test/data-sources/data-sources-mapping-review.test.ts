import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { bearer, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY } from "@als/test-support/trace-providers/braintrust-server.ts";
import { type DataSourceService, startDataSourceService } from "@als/test-support/trace-providers/data-source-service.ts";
import { LANGFUSE_KEYS } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY } from "@als/test-support/trace-providers/langsmith-server.ts";

// The walk of each provider: connect → discover → select a stream → sample → save a mapping →
// preview → validate, against its protocol server over real HTTP, under both prefixes.

let env: DataSourceService;
let owner: Tenant;
beforeAll(async () => {
  env = await startDataSourceService("review");
  owner = env.owner;
}, 120_000);
afterAll(() => env.close());

const PREFIXES = dataSourcePrefixes(() => owner);
const call = (prefix: DataSourcePrefix, method: string, path: string, body?: unknown) => env.svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

afterEach(async () => {
  for (const connection of (await call(PREFIXES[0]!, "GET", "")).body.connections) {
    await call(PREFIXES[0]!, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision });
  }
});

const WINDOW = { start: "2026-11-01T00:00:00Z", end: "2026-11-06T00:00:00Z" };
const mapping = (fields: object) => ({ version: 1, rules: [{ name: "chat", fields }] });

const SOURCES = [
  {
    provider: "trace_provider_a",
    credentials: { api_key: BRAINTRUST_KEY },
    project: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
    definition: mapping({
      user: { path: "/metadata/user_id" },
      input: { path: "/input/0/content" },
      output: { path: "/output", transform: "first_text_block" },
    }),
  },
  {
    provider: "trace_provider_b",
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    project: "cm3x2k9p10001lfsupport001",
    definition: mapping({
      user: { path: "/userId" },
      session: { path: "/sessionId" },
      input: { path: "/input/messages/0/content" },
      output: { path: "/output/content" },
    }),
  },
  {
    provider: "trace_provider_c",
    credentials: { api_key: LANGSMITH_KEY },
    project: "a3f0c1de-0000-4000-8000-000000000001",
    definition: mapping({
      user: { path: "/extra/metadata/user_id" },
      input: { path: "/inputs/messages/0/content" },
      output: { path: "/outputs/output" },
      timestamp: { path: "/start_time" },
    }),
  },
] as const;

/** Connect, discover, select, sample: the stream and its complete sample. */
async function sampledStream(prefix: DataSourcePrefix, source: (typeof SOURCES)[number] = SOURCES[0]) {
  const connection = (await call(prefix, "POST", "/connections", { name: "reviewed", provider: source.provider, region: "us", ...source.credentials })).body;
  const discovered = await call(prefix, "GET", `/connections/${connection.connection_id}/projects`);
  expect(discovered.body.projects.map((project: { id: string }) => project.id)).toContain(source.project);
  const stream = (await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: source.project })).body;
  const accepted = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: WINDOW });
  await env.svc.learningIdle();
  const sample = (await call(prefix, "GET", `/samples/${accepted.body.sample_id}`)).body;
  expect(sample.status).toBe("complete");
  return { connection, stream, sample };
}

for (const prefix of PREFIXES) {
  describe(`the mapping walk under ${prefix.name}`, () => {
    for (const source of SOURCES) {
      test(`${source.provider}: connect → discover → select → sample → save → preview → validate`, async () => {
        const { stream, sample } = await sampledStream(prefix, source);
        const saved = await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition: source.definition });
        expect(saved.body.revision).toBe(1);
        const preview = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 });
        expect(preview.status).toBe(200);
        expect(preview.body).toMatchObject({
          ready: 5,
          held: 0,
          excluded: 0,
          sourceRecords: 5,
          messages: 10,
          mapping_revision: 1,
          blockers: [],
          advisory: true,
        });
        expect(preview.body.rule_coverage).toEqual({ chat: { matched: 5, ready: 5, held: 0 } });
        expect(preview.body.records[0].interaction).toMatchObject({ user_id: "u-1", input: "How do I reset my password?" });
        expect(preview.body.records[0].interaction.output).toContain("Open Settings");
        const validated = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/validate`, {
          sample_id: sample.sample_id,
          expected_revision: 1,
          sample_digest: preview.body.sample_digest,
        });
        expect(validated.status).toBe(200);
        expect(validated.body).toMatchObject({ revision: 1, validated_revision: 1, mapping_revision: null });
        // A save invalidates validation.
        const resaved = await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 1, definition: source.definition });
        expect(resaved.body).toMatchObject({ revision: 2, validated_revision: null });
      });
    }
  });
}

describe("preview and validation rules", () => {
  const prefix = PREFIXES[0]!;
  const definition = SOURCES[0].definition;

  test("a proposal is previewed without being saved", async () => {
    const { stream, sample } = await sampledStream(prefix);
    const proposal = mapping({
      user: { path: "/metadata/user_id" },
      input: { path: "/input/0/content" },
      output: { path: "/output/0/text" },
      completion: { path: "/metadata/paid" },
    });
    const preview = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, {
      sample_id: sample.sample_id,
      expected_revision: 0,
      definition: proposal,
    });
    expect(preview.body).toMatchObject({ mapping_revision: null, ready: 1, held: 4, excluded: 0 });
    expect(preview.body.records.find((record: { trace_id: string }) => record.trace_id === "5e1f0a00-0000-4000-8000-000000000020").reasons).toEqual([
      "completion:incomplete",
    ]);
    expect(preview.body.blockers).toEqual([]);
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body).toMatchObject({ revision: 0, draft: null });
  });

  test("a preview without a definition or a saved draft answers 422 naming definition", async () => {
    const { stream, sample } = await sampledStream(prefix);
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 0 });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("definition");
  });

  test("stale revisions answer 409 on preview, validate and upgrade-text", async () => {
    const { stream, sample } = await sampledStream(prefix);
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
    const digest = (await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 })).body
      .sample_digest;
    for (const [path, body] of [
      ["preview", { sample_id: sample.sample_id, expected_revision: 2 }],
      ["mapping/validate", { sample_id: sample.sample_id, expected_revision: 2, sample_digest: digest }],
      ["mapping/upgrade-text", { expected_revision: 2 }],
    ] as const) {
      const response = await call(prefix, "POST", `/streams/${stream.stream_id}/${path}`, body);
      expect(response.status).toBe(409);
      expect(response.body.detail).toContain("re-read");
    }
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body).toMatchObject({ revision: 1, validated_revision: null });
  });

  test("validate refuses a definition (even the saved one), another digest, overlapping rules and samples without ready records", async () => {
    const { stream, sample } = await sampledStream(prefix);
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
    const validate = (body: object) => call(prefix, "POST", `/streams/${stream.stream_id}/mapping/validate`, { sample_id: sample.sample_id, ...body });
    const digest = (await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 })).body
      .sample_digest;

    const withDefinition = await validate({ expected_revision: 1, sample_digest: digest, definition });
    expect(withDefinition.status).toBe(422);
    expect(withDefinition.body.message).toContain("definition");
    const otherDigest = await validate({ expected_revision: 1, sample_digest: "0".repeat(64) });
    expect(otherDigest.status).toBe(409);

    const overlapping = { version: 1, rules: [definition.rules[0], { ...definition.rules[0], name: "again" }] };
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 1, definition: overlapping });
    const refused = await validate({ expected_revision: 2, sample_digest: digest });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain("overlapping_rules");

    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 2, definition: mapping({ input: { path: "/input/0/content" } }) });
    const noneReady = await validate({ expected_revision: 3, sample_digest: digest });
    expect(noneReady.status).toBe(422);
    expect(noneReady.body.message).toContain("no_ready_records");
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body.validated_revision).toBeNull();
  });

  test("upgrade-text rewrites indexed text pointers to their content array; a second run is a no-op", async () => {
    const { stream } = await sampledStream(prefix);
    const indexed = mapping({ user: { path: "/metadata/user_id" }, input: { path: "/input/0/content" }, output: { path: "/output/0/text" } });
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition: indexed });
    const upgraded = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/upgrade-text`, { expected_revision: 1 });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.revision).toBe(2);
    expect(upgraded.body.draft.rules[0].fields).toEqual({
      user: { path: "/metadata/user_id" },
      // A message list's index is not a content array: kept.
      input: { path: "/input/0/content" },
      output: { path: "/output", transform: "first_text_block" },
    });
    const again = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/upgrade-text`, { expected_revision: 2 });
    expect(again.body).toEqual(upgraded.body);
  });

  test("evidence must be a complete sample of this stream: unknown or another stream's is 404, a failed one 422", async () => {
    const { stream, sample } = await sampledStream(prefix);
    const other = await sampledStream(prefix);
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
    expect((await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: other.sample.sample_id, expected_revision: 1 })).status).toBe(404);
    expect((await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: "dsm_nope", expected_revision: 1 })).status).toBe(404);
    env.servers.a.rateLimitNext(1, "3600");
    const failed = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: WINDOW });
    await env.svc.learningIdle();
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: failed.body.sample_id, expected_revision: 1 });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("sample_id");
    expect(response.body.message).toContain("provider_rate_limited");
    expect((await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 })).status).toBe(200);
  });

  test("another organisation's credentials reach none of it (404)", async () => {
    const { stream, sample } = await sampledStream(prefix);
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
    for (const [base, headers] of [
      ["/api/data-sources", bearer(env.stranger.fullKey)],
      ["/api/projects/default/data-sources", { ...bearer(env.stranger.loginSession), "x-service-project": "default" }],
    ] as const) {
      expect(
        (await env.svc.call("POST", `${base}/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 }, headers)).status,
      ).toBe(404);
      expect((await env.svc.call("POST", `${base}/streams/${stream.stream_id}/mapping/upgrade-text`, { expected_revision: 1 }, headers)).status).toBe(404);
      const validate = { sample_id: sample.sample_id, expected_revision: 1, sample_digest: "0".repeat(64) };
      expect((await env.svc.call("POST", `${base}/streams/${stream.stream_id}/mapping/validate`, validate, headers)).status).toBe(404);
    }
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body).toMatchObject({ revision: 1, validated_revision: null });
  });

  test("without a configured model: suggestions are unavailable and initialization answers 503, saving nothing", async () => {
    const { stream, sample } = await sampledStream(prefix);
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/suggestions/model`)).body).toMatchObject({ available: false, model: null });
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id });
    expect(response.status).toBe(503);
    expect(response.body.error).toBe("llm_unavailable");
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body.revision).toBe(0);
  });

  // Last: moving the clock a day ends the dashboard sessions of this file.
  test("an expired sample is no evidence (422 naming sample_id)", async () => {
    const { stream, sample } = await sampledStream(prefix);
    await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
    env.svc.clock.now += 86_400;
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("expired");
  });
});
