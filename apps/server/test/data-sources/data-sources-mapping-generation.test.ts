import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { bearer, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY } from "@als/test-support/trace-providers/braintrust-server.ts";
import { type DataSourceService, startDataSourceService } from "@als/test-support/trace-providers/data-source-service.ts";
import { LANGFUSE_KEYS } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY } from "@als/test-support/trace-providers/langsmith-server.ts";

// Mapping initialization and suggestions through the real OpenAI-compatible client and a scripted
// model on 127.0.0.1: what reaches the model is checked, and a model failure authorizes nothing.

const GENERATED = {
  rule_name: "generated chat",
  user: "/metadata/user_id",
  session: null,
  input: "/input/0/content",
  input_transform: null,
  output: "/output",
  output_transform: "first_text_block",
  version: null,
  source: null,
  timestamp: "/created",
};

/** The scripted model reads the examples' shape as a model would: each provider's records get their own pointers. */
function generatedFor(user: string) {
  if (user.includes('"sessionId"')) {
    return {
      ...GENERATED,
      user: "/userId",
      session: "/sessionId",
      input: "/input/messages/0/content",
      output: "/output/content",
      output_transform: null,
      timestamp: "/timestamp",
    };
  }
  if (user.includes('"run_type"')) {
    return {
      ...GENERATED,
      user: "/extra/metadata/user_id",
      input: "/inputs/messages/0/content",
      output: "/outputs/output",
      output_transform: null,
      timestamp: "/start_time",
    };
  }
  return GENERATED;
}

const asked: FakeLlmRequest[] = [];
let reply: (request: FakeLlmRequest) => FakeLlmReply = scripted;

function scripted(request: FakeLlmRequest): FakeLlmReply {
  if (request.schemaName === "mapping_initialization") return { json: generatedFor(request.user) };
  return {
    json: {
      candidates: [
        { field: "user", path: "/metadata/user_id", transform: null, reason: "a user id under metadata" },
        { field: "output", path: "/output", transform: "first_text_block", reason: "an array of content blocks" },
        { field: "session", path: "/metadata/session_id", transform: null, reason: "invented: not in the inventory" },
      ],
    },
  };
}

let env: DataSourceService;
let owner: Tenant;
let closeLlm: () => Promise<void>;
beforeAll(async () => {
  const { server, llm } = await startScriptedLlm((request) => {
    asked.push(request);
    return reply(request);
  });
  closeLlm = () => server.close();
  env = await startDataSourceService("generation", { llm });
  owner = env.owner;
}, 120_000);
afterAll(async () => {
  await env.close();
  await closeLlm();
});

const PREFIXES = dataSourcePrefixes(() => owner);
const call = (prefix: DataSourcePrefix, method: string, path: string, body?: unknown) => env.svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

afterEach(async () => {
  reply = scripted;
  for (const connection of (await call(PREFIXES[0]!, "GET", "")).body.connections) {
    await call(PREFIXES[0]!, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision });
  }
});

const SOURCES = [
  { provider: "trace_provider_a", credentials: { api_key: BRAINTRUST_KEY }, project: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01" },
  {
    provider: "trace_provider_b",
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    project: "cm3x2k9p10001lfsupport001",
  },
  { provider: "trace_provider_c", credentials: { api_key: LANGSMITH_KEY }, project: "a3f0c1de-0000-4000-8000-000000000001" },
] as const;

/** Connect → discover → select → sample: the stream and its complete sample. */
async function sampledStream(prefix: DataSourcePrefix, source: (typeof SOURCES)[number] = SOURCES[0]) {
  const connection = (await call(prefix, "POST", "/connections", { name: "generated", provider: source.provider, region: "us", ...source.credentials })).body;
  const discovered = (await call(prefix, "GET", `/connections/${connection.connection_id}/projects`)).body;
  expect(discovered.projects.map((project: { id: string }) => project.id)).toContain(source.project);
  const stream = (await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: source.project })).body;
  const accepted = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, {
    revision: stream.revision,
    sample_window: { start: "2026-11-01T00:00:00Z", end: "2026-11-06T00:00:00Z" },
  });
  await env.svc.learningIdle();
  return { stream, sample: (await call(prefix, "GET", `/samples/${accepted.body.sample_id}`)).body };
}

for (const prefix of PREFIXES) {
  describe(`initialization and suggestions under ${prefix.name}`, () => {
    for (const source of SOURCES) {
      test(`${source.provider}: connect → discover → select → sample → initialize → preview → validate`, async () => {
        const { stream, sample } = await sampledStream(prefix, source);
        const initialized = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id });
        expect(initialized.body).toMatchObject({ revision: 1, validated_revision: null });
        const preview = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sample.sample_id, expected_revision: 1 });
        expect(preview.body).toMatchObject({ ready: 5, held: 0, excluded: 0, blockers: [] });
        expect(preview.body.records[0].interaction).toMatchObject({
          user_id: "u-1",
          input: "How do I reset my password?",
          created_at: Date.parse("2026-11-01T10:00:00Z") / 1000,
        });
        const validated = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/validate`, {
          sample_id: sample.sample_id,
          expected_revision: 1,
          sample_digest: preview.body.sample_digest,
        });
        expect(validated.body).toMatchObject({ revision: 1, validated_revision: 1 });
      });
    }

    test("initialization sends three masked examples and saves what the model proposed", async () => {
      const { stream, sample } = await sampledStream(prefix);
      const before = asked.length;
      const initialized = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id });
      expect(initialized.status).toBe(200);
      expect(initialized.body).toMatchObject({ revision: 1, validated_revision: null });
      expect(initialized.body.draft.rules[0]).toEqual({
        name: "generated chat",
        fields: {
          user: { path: "/metadata/user_id" },
          input: { path: "/input/0/content" },
          output: { path: "/output", transform: "first_text_block" },
          timestamp: { path: "/created" },
        },
      });
      expect(asked.length - before).toBe(1);
      const sent = asked.at(-1)!.user;
      expect(sent).toContain("Example 3:");
      expect(sent).not.toContain("Example 4:");
      // The transaction number of the fixture's spans is a long digit run: masked.
      expect(sent).not.toContain("1000192");
      expect(sent).toContain("<number>");
    });

    test("at revision 0 a saved draft is kept without asking the model; the current revision regenerates; a stale one is 409", async () => {
      const { stream, sample } = await sampledStream(prefix);
      await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id });
      const before = asked.length;
      const kept = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id, expected_revision: 0 });
      expect(kept.body.revision).toBe(1);
      expect(asked.length).toBe(before);
      const regenerated = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id, expected_revision: 1 });
      expect(regenerated.body.revision).toBe(2);
      const stale = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id, expected_revision: 1 });
      expect(stale.status).toBe(409);
    });

    test("suggestions send field names and types only, drop invented pointers, and apply nothing", async () => {
      const { stream, sample } = await sampledStream(prefix);
      const model = await call(prefix, "GET", `/streams/${stream.stream_id}/suggestions/model`);
      expect(model.body).toMatchObject({ available: true, model: "scripted-model" });
      const digest = (
        await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, {
          sample_id: sample.sample_id,
          expected_revision: 0,
          definition: { version: 1, rules: [{ name: "probe", fields: { input: { path: "/input" } } }] },
        })
      ).body.sample_digest;
      const suggested = await call(prefix, "POST", `/streams/${stream.stream_id}/suggestions`, {
        sample_id: sample.sample_id,
        expected_revision: 0,
        sample_digest: digest,
        consent: true,
      });
      expect(suggested.status).toBe(200);
      expect(suggested.body).toMatchObject({
        revision: 0,
        sample_id: sample.sample_id,
        sample_digest: digest,
        model: "scripted-model",
        automatic_application: false,
      });
      expect(suggested.body.prompt_version).toBe("mapping-suggestions@v1");
      expect(suggested.body.candidates.map((candidate: { field: string }) => candidate.field)).toEqual(["user", "output"]);
      expect(suggested.body.missing).toContain("session");
      expect(suggested.body.measured_coverage).toEqual({ "user:/metadata/user_id": 1, "output:/output": 1 });
      const sent = asked.at(-1)!.user;
      expect(sent).toContain("/metadata/user_id: string");
      expect(sent).toContain("/input/0/content: string");
      for (const value of ["How do I reset my password?", "Open Settings", "u-1", "prod"]) expect(sent).not.toContain(value);
      expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body.revision).toBe(0);
    });
  });
}

describe("generation rules", () => {
  const prefix = PREFIXES[0]!;

  test.each([
    ["consent false", { consent: false }, "consent"],
    ["consent missing", {}, "consent"],
    ["a digest that is not one", { consent: true, sample_digest: "abc" }, "sample_digest"],
  ])("suggestions with %s answer 422 naming the field, and nothing reaches the model", async (_name, body, field) => {
    const { stream, sample } = await sampledStream(prefix);
    const before = asked.length;
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/suggestions`, {
      sample_id: sample.sample_id,
      expected_revision: 0,
      sample_digest: "0".repeat(64),
      ...body,
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
    expect(asked.length).toBe(before);
  });

  test("a model that fails saves nothing (503)", async () => {
    const { stream, sample } = await sampledStream(prefix);
    reply = () => ({ status: 500, error: { message: "overloaded" } });
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id });
    expect(response.status).toBe(503);
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body).toMatchObject({ revision: 0, draft: null });
  });

  test("a model proposing a mapping the contract refuses saves nothing (503)", async () => {
    const { stream, sample } = await sampledStream(prefix);
    reply = () => ({ json: { ...GENERATED, user: "metadata/user_id" } });
    const response = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id });
    expect(response.status).toBe(503);
    expect(response.body.detail).toContain("nothing was saved");
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body.revision).toBe(0);
  });

  test("another organisation's credentials reach none of it (404), and the model is not asked", async () => {
    const { stream, sample } = await sampledStream(prefix);
    const before = asked.length;
    for (const [base, headers] of [
      ["/api/data-sources", bearer(env.stranger.fullKey)],
      ["/api/projects/default/data-sources", { ...bearer(env.stranger.loginSession), "x-service-project": "default" }],
    ] as const) {
      expect((await env.svc.call("POST", `${base}/streams/${stream.stream_id}/mapping/initialize`, { sample_id: sample.sample_id }, headers)).status).toBe(404);
      expect((await env.svc.call("GET", `${base}/streams/${stream.stream_id}/suggestions/model`, undefined, headers)).status).toBe(404);
      const body = { sample_id: sample.sample_id, expected_revision: 0, sample_digest: "0".repeat(64), consent: true };
      expect((await env.svc.call("POST", `${base}/streams/${stream.stream_id}/suggestions`, body, headers)).status).toBe(404);
    }
    expect(asked.length).toBe(before);
  });
});
