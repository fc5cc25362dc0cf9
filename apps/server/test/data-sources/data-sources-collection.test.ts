import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { parseMetricsText, sampleValue } from "@als/test-support/metrics-text.ts";
import { bearer, type Tenant } from "@als/test-support/tenants.ts";
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
import { createApiMetrics } from "../../src/metrics/api-metrics.ts";

// Activation → backfill → live collection → held records and retry → evidence → deletion, per
// provider against its protocol server with generated traffic (every 5th trace has no user and is
// held), under both prefixes. The reconciler runs the collection's steps (the Temporal workflow
// runs the same step: data-sources-collection-restart.test.ts).

const NOW = Math.floor(Date.now() / 1000);
const HISTORY: TrafficShape = { start: NOW - 3600, count: 25, spacing: 60, heldEvery: 5 };
const traffic = {
  a: braintrustData(braintrustTraffic(HISTORY)),
  b: { traces: langfuseTraffic(HISTORY), observations: [] },
  c: { runs: langsmithTraffic(HISTORY) },
};

let env: DataSourceService;
let owner: Tenant;
beforeAll(async () => {
  env = await startDataSourceService("collection", { traffic });
  env.svc.clock.now = NOW;
  owner = env.owner;
}, 120_000);
afterAll(() => env.close());

const PREFIXES = dataSourcePrefixes(() => owner);
const call = (prefix: DataSourcePrefix, method: string, path: string, body?: unknown) => env.svc.call(method, `${prefix.base}${path}`, body, prefix.headers());
const rule = (fields: object) => ({ version: 1, rules: [{ name: "chat", fields }] });

/** Activates a validated stream over the whole generated history (the last two hours). */
const activateHistory = (prefix: DataSourcePrefix, stream: { stream_id: string; revision: number }) =>
  call(prefix, "POST", `/streams/${stream.stream_id}/activate`, {
    stream_revision: stream.revision,
    mapping_revision: 1,
    history_start: NOW - 7200,
    history_end: NOW - 1,
  });

const SOURCES = [
  {
    provider: "trace_provider_a",
    credentials: { api_key: BRAINTRUST_KEY },
    definition: rule(SYNTHETIC_MAPPING_FIELDS.trace_provider_a),
    fallback: rule({ user: { path: "/metadata/env" }, input: { path: "/input/0/content" }, output: { path: "/output", transform: "first_text_block" } }),
    addLive: (shape: TrafficShape) => traffic.a.events.push(...braintrustTraffic(shape)),
  },
  {
    provider: "trace_provider_b",
    credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
    definition: rule(SYNTHETIC_MAPPING_FIELDS.trace_provider_b),
    fallback: rule({ user: { path: "/environment" }, input: { path: "/input/messages/0/content" }, output: { path: "/output/content" } }),
    addLive: (shape: TrafficShape) => traffic.b.traces.push(...langfuseTraffic(shape)),
  },
  {
    provider: "trace_provider_c",
    credentials: { api_key: LANGSMITH_KEY },
    definition: rule(SYNTHETIC_MAPPING_FIELDS.trace_provider_c),
    fallback: rule({ user: { path: "/extra/metadata/env" }, input: { path: "/inputs/messages/0/content" }, output: { path: "/outputs/output" } }),
    addLive: (shape: TrafficShape) => traffic.c.runs.push(...langsmithTraffic(shape)),
  },
] as const;

/** Connect, select, sample, save and validate `definition`: the stream and its sample, ready to activate. */
async function validatedStream(prefix: DataSourcePrefix, source: (typeof SOURCES)[number]) {
  const connection = (
    await call(prefix, "POST", "/connections", { name: `collected ${source.provider}`, provider: source.provider, region: "us", ...source.credentials })
  ).body;
  const project = SYNTHETIC_PROJECTS[source.provider];
  const stream = (await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: project })).body;
  expect(stream.stream_id).toBeString();
  const window = { start: new Date((NOW - 7200) * 1000).toISOString(), end: new Date(NOW * 1000).toISOString() };
  const accepted = await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: window });
  await env.svc.learningIdle();
  const sample = (await call(prefix, "GET", `/samples/${accepted.body.sample_id}`)).body;
  expect(sample.status).toBe("complete");
  await validate(prefix, stream.stream_id, sample.sample_id, 0, source.definition);
  const current = (await call(prefix, "GET", "")).body.streams.find((candidate: { stream_id: string }) => candidate.stream_id === stream.stream_id);
  return { connection, stream: current, sample };
}

async function validate(prefix: DataSourcePrefix, streamId: string, sampleId: string, revision: number, definition: object) {
  const saved = await call(prefix, "PUT", `/streams/${streamId}/mapping`, { expected_revision: revision, definition });
  const preview = await call(prefix, "POST", `/streams/${streamId}/preview`, { sample_id: sampleId, expected_revision: saved.body.revision });
  const validated = await call(prefix, "POST", `/streams/${streamId}/mapping/validate`, {
    sample_id: sampleId,
    expected_revision: saved.body.revision,
    sample_digest: preview.body.sample_digest,
  });
  expect(validated.status).toBe(200);
  return validated.body.validated_revision as number;
}

describe("a collection per provider", () => {
  SOURCES.forEach((source, index) => {
    const prefix = PREFIXES[index % 2]!;
    test(`${source.provider} (${prefix.name}): the history is imported once, traces without a user held, live traffic followed, held records retried`, async () => {
      env.svc.clock.now = NOW;
      const { connection, stream } = await validatedStream(prefix, source);
      const activated = await activateHistory(prefix, stream);
      expect(activated.status).toBe(202);
      expect(activated.body).toMatchObject({ state: "backfilling", lifecycle_revision: 1, mapping_revision: 1, activated_at: NOW });
      expect(activated.body.backfill).toMatchObject({ status: "importing", message_unit_limit: 5000, history_start: NOW - 7200, history_end: NOW - 1 });
      await env.svc.learningIdle();

      let status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
      expect(status).toMatchObject({ state: "collecting", stream_revision: stream.revision + 1, held: 5, last_error: null });
      expect(status.backfill).toMatchObject({ status: "complete", message_units_used: 40 });
      expect(status.backfill.counts).toEqual({ read: 25, imported: 20, duplicates: 0, held: 5, excluded: 0, spans_read: 0, spans_bounded: 0 });
      // The same figures in /metrics, summed over the provider's collections (this one, here) and labelled by provider only.
      const metrics = parseMetricsText(await createApiMetrics(env.svc.deps).registry.metrics());
      const figure = (name: string, labels: Record<string, string> = {}) => sampleValue(metrics, name, { provider: source.provider, ...labels });
      expect(figure("als_data_source_collections", { state: "collecting" })).toBe(1);
      expect(figure("als_data_source_traces", { phase: "backfill", outcome: "imported" })).toBe(20);
      expect(figure("als_data_source_traces", { phase: "backfill", outcome: "held" })).toBe(5);
      expect(figure("als_data_source_held_records", { status: "held" })).toBe(5);
      expect(figure("als_data_source_backfill_pages")).toBeGreaterThan(0);
      expect(figure("als_data_source_collections_failing")).toBe(0);
      expect((await call(prefix, "GET", `/connections/${connection.connection_id}`)).body).toMatchObject({ status: "activated", draft_expires_at: null });
      expect((await call(prefix, "GET", `/streams/${stream.stream_id}/mapping`)).body.mapping_revision).toBe(1);

      const held = (await call(prefix, "GET", `/streams/${stream.stream_id}/held`)).body;
      expect(held.next_cursor).toBeNull();
      expect(held.records.map((record: { reasons: string[] }) => record.reasons)).toEqual(Array(5).fill(["user:missing"]));
      const evidence = (await call(prefix, "GET", `/streams/${stream.stream_id}/evidence`)).body;
      expect(evidence.receipts).toHaveLength(20);
      expect(evidence.receipts[0]).toMatchObject({ phase: "backfill", rule: "chat", mapping_revision: 1, message_units: 2 });
      expect(new Set(evidence.receipts.map((receipt: { request_id: string }) => receipt.request_id)).size).toBe(20);
      const learning = await env.svc.call("GET", `/api/learning_status?request_id=${evidence.receipts[0].request_id}`, undefined, bearer(owner.fullKey));
      expect(learning.body.status).toBe(evidence.receipts[0].learning_status);

      // Live traffic after activation: read by the next poll, once, however often it polls. A trace
      // the provider lists only after that poll, though it started before the watermark, is found
      // by the next poll's look-back; the look-back's traces read again are not counted again.
      source.addLive({ start: NOW + 5, count: 3, idPrefix: `live-${source.provider}` });
      env.svc.clock.now = NOW + 120;
      for (let poll = 0; poll < 2; poll++) {
        const polled = await call(prefix, "POST", `/streams/${stream.stream_id}/operations`, { lifecycle_revision: 1 + poll, operation: "poll_now" });
        expect(polled.status).toBe(200);
        await env.svc.learningIdle();
        if (poll === 0) {
          expect((await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body.live.watermark).toBe(NOW + 120 - 5);
          source.addLive({ start: NOW + 60, count: 1, idPrefix: `late-${source.provider}` });
          env.svc.clock.now = NOW + 180;
        }
      }
      status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
      expect(status.live.counts).toMatchObject({ read: 4, imported: 4, duplicates: 0, held: 0 });
      expect(status.live.watermark).toBe(NOW + 180 - 5);
      expect(status.backfill.message_units_used).toBe(40);

      // A mapping that reads a user for every record, promoted, lets a retry import the held ones.
      const sampleId = (await call(prefix, "GET", "")).body.samples.find((sample: { stream_id: string }) => sample.stream_id === stream.stream_id).sample_id;
      const promoted = await validate(prefix, stream.stream_id, sampleId, 1, source.fallback);
      const promotion = await call(prefix, "PUT", `/streams/${stream.stream_id}/active-mapping`, { lifecycle_revision: 3, mapping_revision: promoted });
      expect(promotion.body).toMatchObject({ mapping_revision: promoted, lifecycle_revision: 4 });
      const retryInput = { lifecycle_revision: 4, mapping_revision: promoted };
      const preview = await call(prefix, "POST", `/streams/${stream.stream_id}/retry-preview`, retryInput);
      expect(preview.body.dispositions.map((d: { disposition: string }) => d.disposition)).toEqual(Array(5).fill("import"));
      const wrong = await call(prefix, "POST", `/streams/${stream.stream_id}/retry`, { ...retryInput, preview_digest: "0".repeat(64) });
      expect(wrong.status).toBe(409);
      // Sent again under its Idempotency-Key (a lost answer), the retry answers as the first did instead of 409.
      const retry = () =>
        env.svc.call(
          "POST",
          `${prefix.base}/streams/${stream.stream_id}/retry`,
          { ...retryInput, preview_digest: preview.body.preview_digest },
          {
            ...prefix.headers(),
            "idempotency-key": `retry-${source.provider}-${prefix.name}`,
          },
        );
      const retried = await retry();
      expect(retried.status).toBe(202);
      expect(retried.body).toMatchObject({ queued: true, lifecycle_revision: 5 });
      expect(await retry()).toEqual(retried);
      await env.svc.learningIdle();
      status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
      expect(status).toMatchObject({ held: 0, lifecycle_revision: 5 });
      expect(status.retry).toMatchObject({ queued: 0, counts: { read: 5, imported: 5 } });

      // Deleting the connection stops the collection; the receipts stay.
      const refused = await call(prefix, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision + 1 });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toContain("lifecycle_revision");
      const deleted = await call(prefix, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision + 1, lifecycle_revision: 5 });
      expect(deleted.status).toBe(200);
      expect((await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).status).toBe(404);
    }, 120_000);
  });
});

describe("collection rules", () => {
  const prefix = PREFIXES[0]!;
  const source = SOURCES[0];

  test("bad activation input answers 422 naming the field and activates nothing; stale revisions answer 409", async () => {
    env.svc.clock.now = NOW;
    const { stream } = await validatedStream(prefix, source);
    const path = `/streams/${stream.stream_id}/activate`;
    const base = { stream_revision: stream.revision, mapping_revision: 1 };
    const future = await call(prefix, "POST", path, { ...base, history_start: NOW - 10, history_end: NOW + 100 });
    expect(future.status).toBe(422);
    expect(JSON.stringify(future.body)).toContain("history_end");
    const reversed = await call(prefix, "POST", path, { ...base, history_start: NOW - 10, history_end: NOW - 20 });
    expect(reversed.status).toBe(422);
    expect(JSON.stringify(reversed.body)).toContain("history_end");
    const noRange = await call(prefix, "POST", path, base);
    expect(noRange.status).toBe(422);
    expect(JSON.stringify(noRange.body)).toContain("history_start");
    expect((await call(prefix, "POST", path, { ...base, stream_revision: stream.revision + 5, history_start: 1, history_end: 2 })).status).toBe(409);
    expect((await call(prefix, "POST", path, { ...base, mapping_revision: 2, history_start: 1, history_end: 2 })).status).toBe(409);
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).status).toBe(404);

    // Another organisation's credentials see no such stream.
    const stranger = await env.svc.call("POST", `/api/data-sources${path}`, { ...base, history_start: 1, history_end: 2 }, bearer(env.stranger.fullKey));
    expect(stranger.status).toBe(404);

    // Two activations at once: one collection, the other answers 409.
    const racing = await Promise.all([0, 1].map(() => call(prefix, "POST", path, { ...base, history_start: NOW - 7200, history_end: NOW - 3000 })));
    expect(racing.map((answer) => answer.status).sort()).toEqual([202, 409]);
    expect((await call(prefix, "POST", path, { ...base, stream_revision: stream.revision + 1, history_start: 1, history_end: 2 })).status).toBe(409);
    expect(
      (await call(prefix, "PUT", `/connections/${stream.connection_id}/stream`, { revision: 2, external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02" }))
        .status,
    ).toBe(409);
    await env.svc.learningIdle();

    const status = `/streams/${stream.stream_id}/status`;
    expect((await env.svc.call("GET", `/api/data-sources${status}`, undefined, bearer(env.stranger.fullKey))).status).toBe(404);
    const operations = `/streams/${stream.stream_id}/operations`;
    expect((await call(prefix, "POST", operations, { lifecycle_revision: 1, operation: "rewind" })).status).toBe(422);
    expect((await call(prefix, "POST", operations, { lifecycle_revision: 9, operation: "pause" })).status).toBe(409);
    expect((await call(prefix, "POST", operations, { lifecycle_revision: 1, operation: "pause" })).body).toMatchObject({
      state: "paused",
      lifecycle_revision: 2,
    });
    expect((await call(prefix, "POST", operations, { lifecycle_revision: 2, operation: "resume" })).body).toMatchObject({
      state: "collecting",
      lifecycle_revision: 3,
    });

    const limit = `/streams/${stream.stream_id}/backfill-limit`;
    const lower = await call(prefix, "PUT", limit, { lifecycle_revision: 3, message_units: 100 });
    expect(lower.status).toBe(422);
    expect(JSON.stringify(lower.body)).toContain("message_units");
    expect((await call(prefix, "PUT", limit, { lifecycle_revision: 3, message_units: null })).body.backfill).toMatchObject({ message_unit_limit: null });

    const filters = `/streams/${stream.stream_id}/traffic-filters`;
    const current = (await call(prefix, "GET", status)).body;
    const edited = await call(prefix, "PUT", filters, {
      stream_revision: current.stream_revision,
      lifecycle_revision: 4,
      filters: [{ path: "tags", op: "eq", values: ["vip"] }],
    });
    expect(edited.body).toMatchObject({ lifecycle_revision: 5, stream_revision: current.stream_revision + 1, filter_execution: "before_download" });
    expect((await call(prefix, "PUT", filters, { stream_revision: 1, lifecycle_revision: 5, filters: [] })).status).toBe(409);
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/held?after=nonsense`)).status).toBe(422);

    // The edited filters apply to the live traffic read from now on: the free trace is not read; the
    // vip one is imported, and any earlier live trace of the project (vip too) is found by its receipt.
    traffic.a.events.push(
      ...braintrustTraffic({ start: NOW + 10, count: 1, idPrefix: "vip", tags: ["vip"] }),
      ...braintrustTraffic({ start: NOW + 11, count: 1, idPrefix: "free", tags: ["free"] }),
    );
    env.svc.clock.now = NOW + 120;
    await call(prefix, "POST", operations, { lifecycle_revision: 5, operation: "poll_now" });
    await env.svc.learningIdle();
    const live = (await call(prefix, "GET", status)).body.live.counts;
    expect(live).toMatchObject({ imported: 1, read: live.duplicates + 1 });

    expect((await call(prefix, "POST", operations, { lifecycle_revision: 6, operation: "stop" })).body.state).toBe("stopped");
    expect((await call(prefix, "POST", operations, { lifecycle_revision: 7, operation: "resume" })).status).toBe(409);
  }, 120_000);

  test("an activation sent again with its Idempotency-Key answers as the first, once activated; another body under the key answers 422", async () => {
    env.svc.clock.now = NOW;
    const { stream } = await validatedStream(prefix, source);
    const body = { stream_revision: stream.revision, mapping_revision: 1, history_start: NOW - 7200, history_end: NOW - 3000 };
    const activate = (sent: object) =>
      env.svc.call("POST", `${prefix.base}/streams/${stream.stream_id}/activate`, sent, { ...prefix.headers(), "idempotency-key": "activate-once" });
    const [first, second] = await Promise.all([activate(body), activate(body)]);
    expect(first.status).toBe(202);
    expect(second).toEqual(first);
    expect(await activate(body)).toEqual(first);
    const reused = await activate({ ...body, history_end: NOW - 3001 });
    expect([reused.status, reused.body.error]).toEqual([422, "idempotency_key_reused"]);
    // Without the key, a second activation is still refused as one.
    expect((await call(prefix, "POST", `/streams/${stream.stream_id}/activate`, body)).status).toBe(409);
    await env.svc.learningIdle();
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body.lifecycle_revision).toBe(1);
  }, 120_000);

  test("traffic filters of trace_provider_b cannot be edited after activation (422 naming filters)", async () => {
    env.svc.clock.now = NOW;
    const langfuse = SOURCES[1];
    const { stream } = await validatedStream(prefix, langfuse);
    await call(prefix, "POST", `/streams/${stream.stream_id}/activate`, {
      stream_revision: stream.revision,
      mapping_revision: 1,
      history_start: NOW - 7200,
      history_end: NOW - 3000,
    });
    const refused = await call(prefix, "PUT", `/streams/${stream.stream_id}/traffic-filters`, {
      stream_revision: stream.revision + 1,
      lifecycle_revision: 1,
      filters: [],
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain("filters");
    expect((await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body.lifecycle_revision).toBe(1);
  }, 120_000);
});

describe("held records", () => {
  test("a trace over 1 MB is held oversized, without its payload, and a retry keeps it held", async () => {
    env.svc.clock.now = NOW;
    const prefix = PREFIXES[1]!;
    const sales = "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a02";
    const [small, big] = braintrustTraffic({ start: NOW - 600, count: 2, idPrefix: "sales" }).map((event) => ({ ...event, project_id: sales }));
    traffic.a.events.push(small!, { ...big!, input: [{ role: "user", content: "x".repeat(1_100_000) }] } as NonNullable<typeof big>);
    const bigId = big!.id;
    const connection = (await call(prefix, "POST", "/connections", { name: "sales", ...SOURCES[0].credentials })).body;
    const stream = (await call(prefix, "PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: sales })).body;
    const window = { start: new Date((NOW - 700) * 1000).toISOString(), end: new Date(NOW * 1000).toISOString() };
    const sampleId = (await call(prefix, "POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: window })).body.sample_id;
    await env.svc.learningIdle();
    await validate(prefix, stream.stream_id, sampleId, 0, SOURCES[0].definition);
    const revision = (await call(prefix, "GET", "")).body.streams.find((each: { stream_id: string }) => each.stream_id === stream.stream_id).revision;
    await call(prefix, "POST", `/streams/${stream.stream_id}/activate`, {
      stream_revision: revision,
      mapping_revision: 1,
      history_start: NOW - 700,
      history_end: NOW,
    });
    await env.svc.learningIdle();
    const status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
    expect(status.backfill.counts).toMatchObject({ read: 2, imported: 1, held: 1 });
    const held = (await call(prefix, "GET", `/streams/${stream.stream_id}/held`)).body.records;
    expect(held).toMatchObject([{ trace_id: bigId, reasons: ["oversized"], phase: "backfill", status: "held" }]);
    const preview = await call(prefix, "POST", `/streams/${stream.stream_id}/retry-preview`, {
      lifecycle_revision: 1,
      mapping_revision: 1,
      trace_ids: [bigId],
    });
    expect(preview.body.dispositions).toEqual([{ trace_id: bigId, disposition: "keep_held", reasons: ["oversized"] }]);
    const unknown = await call(prefix, "POST", `/streams/${stream.stream_id}/retry-preview`, {
      lifecycle_revision: 1,
      mapping_revision: 1,
      trace_ids: [bigId, "nope"],
    });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain("trace_ids[1]");
  }, 120_000);
});

describe("provider rate limits", () => {
  test("a rate limit past the read's retries sets the connection's cooldown; the backfill waits for it and then goes on", async () => {
    env.svc.clock.now = NOW;
    const prefix = PREFIXES[0]!;
    const { stream } = await validatedStream(prefix, SOURCES[0]);
    // Longer than a read waits in place (30 s): the read fails with the provider's retry time.
    env.servers.a.rateLimitNext(1, "120");
    await activateHistory(prefix, stream);
    await env.svc.learningIdle();
    let status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
    expect(status).toMatchObject({ state: "backfilling", cooldown_until: NOW + 120 });
    expect(status.last_error.code).toBe("provider_rate_limited");
    expect(status.backfill.pages).toBe(0);

    env.svc.clock.now = NOW + 121;
    await call(prefix, "POST", `/streams/${stream.stream_id}/operations`, { lifecycle_revision: 1, operation: "poll_now" });
    await env.svc.learningIdle();
    status = (await call(prefix, "GET", `/streams/${stream.stream_id}/status`)).body;
    expect(status).toMatchObject({ state: "collecting", cooldown_until: null, last_error: null });
    expect(status.backfill.counts.read).toBe(25);
  }, 120_000);
});

describe("erasure through a stream", () => {
  const prefix = PREFIXES[0]!;
  const governance = (tenant: Tenant) => ({ ...bearer(tenant.governanceSession), "x-service-project": "default" });

  test("purge-preview counts without erasing; purge-user erases the user with this project's staging and samples, and a re-activation does not import them again", async () => {
    env.svc.clock.now = NOW;
    const { stream } = await validatedStream(prefix, SOURCES[2]);
    await activateHistory(prefix, stream);
    await env.svc.learningIdle();
    const subject = { user_id: "u-1", request_id: "erase-ticket-7" };
    const path = `/api/data-sources/streams/${stream.stream_id}`;

    expect((await env.svc.call("POST", `${path}/purge-preview`, { ...subject, user_id: " " }, governance(owner))).status).toBe(422);
    expect((await env.svc.call("POST", `${path}/purge-preview`, subject, governance(env.stranger))).status).toBe(404);
    expect((await env.svc.call("POST", `${path}/purge-preview`, subject, bearer(owner.fullKey))).status).toBe(403);
    const preview = await env.svc.call("POST", `${path}/purge-preview`, subject, governance(owner));
    expect(preview.status).toBe(200);
    expect(preview.body.erases_nothing).toBe(true);
    expect(preview.body.estimated_counts.requests).toBeGreaterThan(0);
    expect(preview.body.estimated_counts.import_receipts).toBe(preview.body.estimated_counts.requests);
    expect(preview.body.estimated_counts.samples).toBeGreaterThan(0);
    const interactionsOf = async () =>
      (await env.svc.call("POST", "/api/get_interactions", { user_id: "u-1", top_k: 100 }, bearer(owner.fullKey))).body.interactions.length;
    expect(await interactionsOf()).toBe(preview.body.estimated_counts.interactions);

    const erased = await env.svc.call("POST", `${path}/purge-user`, subject, governance(owner));
    expect(erased.status).toBe(202);
    await env.svc.learningIdle();
    const done = (await env.svc.call("GET", `/api/governance/purge-operations/${erased.body.purge_id}`, undefined, governance(owner))).body;
    expect(done.status).toBe("complete");
    expect(done.erasure_scope_cleanup.samples_removed).toBe(preview.body.estimated_counts.samples);
    expect(await interactionsOf()).toBe(0);
    const after = await env.svc.call("POST", `${path}/purge-preview`, subject, governance(owner));
    expect(after.body.estimated_counts).toMatchObject({ requests: 0, import_receipts: 0, samples: 0, held_records: 0 });

    // A new connection to the same external project finds the erased traces suppressed.
    const again = await validatedStream(prefix, SOURCES[2]);
    await activateHistory(prefix, again.stream);
    await env.svc.learningIdle();
    const status = (await call(prefix, "GET", `/streams/${again.stream.stream_id}/status`)).body;
    expect(status.backfill.counts).toMatchObject({ imported: 0, read: 25 });
    expect(await interactionsOf()).toBe(0);
  }, 120_000);
});
