import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { BRAINTRUST_KEY } from "@als/test-support/trace-providers/braintrust-server.ts";
import { type DataSourceService, startDataSourceService } from "@als/test-support/trace-providers/data-source-service.ts";
import { LANGFUSE_KEYS } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY } from "@als/test-support/trace-providers/langsmith-server.ts";
import {
  braintrustData,
  braintrustTraffic,
  langfuseTraffic,
  langsmithTraffic,
  SYNTHETIC_MAPPING_FIELDS,
  SYNTHETIC_PROJECTS,
  type TrafficShape,
} from "@als/test-support/trace-providers/synthetic-traffic.ts";

// What a collection does when the provider is not the one it expected: a Langfuse deployment
// without /api/public/v2/observations and a LangSmith one without /v2/runs/query are read through
// their deprecated endpoints and the status says so; a query the provider rejects, a credential it
// refuses or an endpoint it removed stops the stream with the provider's word and the next step,
// and it is read again when the operator acts, not every 30 seconds.

const NOW = Math.floor(Date.now() / 1000);
const HISTORY: TrafficShape = { start: NOW - 3600, count: 12, spacing: 60 };
const traffic = {
  a: braintrustData(braintrustTraffic(HISTORY)),
  b: { traces: langfuseTraffic(HISTORY), observations: [] },
  c: { runs: langsmithTraffic(HISTORY) },
};

let env: DataSourceService;
beforeAll(async () => {
  env = await startDataSourceService("provider-failures", { traffic, behaviour: { b: { v2: false }, c: { v2: false } } });
  env.svc.clock.now = NOW;
}, 120_000);
afterAll(() => env.close());

const PREFIXES = dataSourcePrefixes(() => env.owner);
const call = (prefix: DataSourcePrefix, method: string, path: string, body?: unknown) => env.svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

const SOURCES = {
  trace_provider_a: { credentials: { api_key: BRAINTRUST_KEY } },
  trace_provider_b: { credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key } },
  trace_provider_c: { credentials: { api_key: LANGSMITH_KEY } },
} as const;
type Provider = keyof typeof SOURCES;

/** Connect, select, sample, validate and activate over the generated history: the stream's collection status once idle. */
async function collecting(prefix: DataSourcePrefix, provider: Provider, beforeActivation: () => void = () => {}) {
  const connection = (await call(prefix, "POST", "/connections", { name: `failing ${provider}`, provider, region: "us", ...SOURCES[provider].credentials }))
    .body;
  const stream = (
    await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: SYNTHETIC_PROJECTS[provider] })
  ).body;
  const window = { start: new Date((NOW - 7200) * 1000).toISOString(), end: new Date(NOW * 1000).toISOString() };
  const sampleId = (await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: window })).body.sample_id;
  await env.svc.learningIdle();
  const definition = { version: 1, rules: [{ name: "chat", fields: SYNTHETIC_MAPPING_FIELDS[provider] }] };
  const saved = await call(prefix, "PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
  const preview = await call(prefix, "POST", `/streams/${stream.stream_id}/preview`, { sample_id: sampleId, expected_revision: saved.body.revision });
  const validated = await call(prefix, "POST", `/streams/${stream.stream_id}/mapping/validate`, {
    sample_id: sampleId,
    expected_revision: saved.body.revision,
    sample_digest: preview.body.sample_digest,
  });
  expect(validated.status).toBe(200);
  const revision = (await call(prefix, "GET", "")).body.streams.find((each: { stream_id: string }) => each.stream_id === stream.stream_id).revision;
  beforeActivation();
  const activated = await call(prefix, "POST", `/streams/${stream.stream_id}/activate`, {
    stream_revision: revision,
    mapping_revision: 1,
    history_start: NOW - 7200,
    history_end: NOW - 1,
  });
  expect(activated.status).toBe(202);
  return { connection, stream };
}

const statusOf = async (prefix: DataSourcePrefix, streamId: string) => (await call(prefix, "GET", `/streams/${streamId}/status`)).body;

describe("deployments older than the providers' current APIs", () => {
  test.each([
    ["trace_provider_b", PREFIXES[0]!, "does not serve /api/public/v2/observations", "/api/public/traces (deprecated)"],
    ["trace_provider_c", PREFIXES[1]!, "does not serve /v2/runs/query", "/api/v1/runs/query (deprecated)"],
  ] as const)(
    "%s: imported through the deprecated endpoint, and the status says so",
    async (provider, prefix, note, endpoint) => {
      env.svc.clock.now = NOW;
      const { stream } = await collecting(prefix, provider);
      await env.svc.learningIdle();
      const status = await statusOf(prefix, stream.stream_id);
      expect(status).toMatchObject({ state: "collecting", last_error: null, filter_execution: "after_download" });
      expect(status.backfill.counts).toMatchObject({ read: 12, imported: 12 });
      expect(status.provider_endpoint.endpoint).toBe(endpoint);
      expect(status.provider_endpoint.note).toContain(note);
    },
    120_000,
  );
});

describe("a provider that refuses stops the stream until the operator acts", () => {
  const server = () => env.servers.a;

  test.each([
    [
      "a query it rejects (400)",
      { status: 400, body: { error: "BTQL: unsupported term near 'is_root'" } },
      "provider_rejected",
      "traffic-filters",
      PREFIXES[0]!,
    ],
    [
      "a credential it refuses (401)",
      { status: 401, body: { error: `Invalid API key ${BRAINTRUST_KEY}` } },
      "provider_credential_refused",
      "credential",
      PREFIXES[1]!,
    ],
    ["an endpoint it removed (410)", { status: 410, body: { error: "Gone" } }, "provider_not_found", "poll_now", PREFIXES[0]!],
  ] as const)(
    "%s: stopped with its message and the next step, not retried every 30 s, read again on poll_now",
    async (_name, reply, code, step, prefix) => {
      env.svc.clock.now = NOW;
      // The provider refuses from the backfill's first page on.
      const { stream } = await collecting(prefix, "trace_provider_a", () => server().answerNext(1000, reply));
      await env.svc.learningIdle();
      const stopped = await statusOf(prefix, stream.stream_id);
      expect(stopped.state).toBe("backfilling");
      expect(stopped.last_error.code).toBe(code);
      expect(stopped.last_error.message).toContain(`HTTP ${reply.status}`);
      expect(stopped.last_error.message).toContain("next step");
      expect(stopped.last_error.message).toContain(step);
      expect(stopped.last_error.message).not.toContain(BRAINTRUST_KEY);
      const refusedReads = server().exchanges.filter((exchange) => exchange.reply.status === reply.status).length;

      // Minutes pass: an outage would have been retried twice a minute; this waits for the operator.
      env.svc.clock.now = NOW + 600;
      await env.svc.learningIdle();
      expect(server().exchanges.filter((exchange) => exchange.reply.status === reply.status).length).toBe(refusedReads);

      // The operator fixes it at the provider and asks for a read: the stream goes on and the error clears.
      server().answerNext(0, reply);
      const operated = await call(prefix, "POST", `/streams/${stream.stream_id}/operations`, {
        lifecycle_revision: stopped.lifecycle_revision,
        operation: "poll_now",
      });
      expect(operated.status).toBe(200);
      await env.svc.learningIdle();
      const resumed = await statusOf(prefix, stream.stream_id);
      expect(resumed).toMatchObject({ state: "collecting", last_error: null });
      // Every trace read; imported by this stream, or by an earlier one of these tests (same project: found by its receipt).
      expect(resumed.backfill.counts.read).toBe(12);
      expect(resumed.backfill.counts.imported + resumed.backfill.counts.duplicates).toBe(12);
    },
    120_000,
  );
});
