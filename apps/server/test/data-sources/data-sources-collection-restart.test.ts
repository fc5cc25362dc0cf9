import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";
import { until } from "@als/test-support/server-process.ts";
import { BRAINTRUST_KEY, type BraintrustData, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";
import { braintrustData, braintrustTraffic, SYNTHETIC_MAPPING_FIELDS, SYNTHETIC_PROJECTS } from "@als/test-support/trace-providers/synthetic-traffic.ts";

// A backfill of 300 traces (every 10th without a user) whose process dies by SIGKILL after its first
// page was imported and before that page's checkpoint (CRASH_POINTS collection.before_checkpoint):
// embedded, the server running the reconciler; full, the worker running the Temporal workflow.
// Started again, the page is read again and its traces are found by their receipts: every eligible
// trace is imported exactly once, the held ones are listed, and live traffic that arrived meanwhile
// is imported once, and the users it was imported for are learned from.

const HISTORY_START = Math.floor(Date.now() / 1000) - 3 * 3600;
const TRACES = 300;
let data: BraintrustData;
let braintrust: ProviderServer;
let deployment: Deployment;

beforeAll(async () => {
  data = braintrustData(braintrustTraffic({ start: HISTORY_START, count: TRACES, spacing: 10, heldEvery: 10 }));
  braintrust = await startBraintrustServer(data);
  deployment = await startableDeployment("collection-restart", { TRACE_PROVIDER_BASE_URLS: JSON.stringify({ "trace_provider_a:us": braintrust.url }) });
}, 120_000);
afterAll(async () => {
  await deployment.close();
  await braintrust.close();
});

const request = async (method: string, path: string, body?: object) => {
  const response = await fetch(`${deployment.url}/api/data-sources${path}`, {
    method,
    ...(body && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

test("a backfill killed between a page's imports and its checkpoint imports every trace exactly once after the restart", async () => {
  await deployment.start({ CRASH_POINTS: "collection.before_checkpoint" });
  const connection = (await request("POST", "/connections", { name: "backfilled", api_key: BRAINTRUST_KEY })).body;
  const stream = (
    await request("PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: SYNTHETIC_PROJECTS.trace_provider_a })
  ).body;
  const window = { start: new Date(HISTORY_START * 1000).toISOString(), end: new Date().toISOString() };
  const sampleId = (await request("POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: window })).body.sample_id;
  await until(async () => ((await request("GET", `/samples/${sampleId}`)).body.status === "complete" ? true : undefined), 60_000);
  const definition = { version: 1, rules: [{ name: "chat", fields: SYNTHETIC_MAPPING_FIELDS.trace_provider_a }] };
  await request("PUT", `/streams/${stream.stream_id}/mapping`, { expected_revision: 0, definition });
  const preview = (await request("POST", `/streams/${stream.stream_id}/preview`, { sample_id: sampleId, expected_revision: 1 })).body;
  await request("POST", `/streams/${stream.stream_id}/mapping/validate`, { sample_id: sampleId, expected_revision: 1, sample_digest: preview.sample_digest });
  const streamRevision = (await request("GET", "")).body.streams[0].revision;
  const activatedAt = Math.floor(Date.now() / 1000);
  // The activation's answer may be cut off by the crash it sets off.
  await request("POST", `/streams/${stream.stream_id}/activate`, {
    stream_revision: streamRevision,
    mapping_revision: 1,
    history_start: HISTORY_START,
    history_end: activatedAt,
  }).catch(() => undefined);
  // Live traffic arrives while the backfill is under way.
  data.events.push(...braintrustTraffic({ start: activatedAt + 1, count: 3, idPrefix: "live" }));
  await Promise.race([deployment.exited(), Bun.sleep(60_000).then(() => Promise.reject(new Error("the crash point was not reached")))]);
  await deployment.kill();

  await deployment.start();
  const complete = await until(async () => {
    const status = (await request("GET", `/streams/${stream.stream_id}/status`)).body;
    return status.backfill?.status === "complete" ? status : undefined;
    // The kill's lease expiry (full mode: the activity's 15 s heartbeat timeout) and 300 traces'
    // imports, on a machine the other mode's suite may keep busy.
  }, 180_000);
  // The crashed page: its 90 imports found by their receipts, its 10 held ones held again (once).
  expect(complete.backfill.counts).toEqual({ read: TRACES, imported: 270, duplicates: 90, held: 30, excluded: 0 });
  // The third page is full, so Braintrust hands a cursor with it; the fourth, empty, ends the walk.
  expect(complete.backfill).toMatchObject({ message_units_used: 540, pages: 4 });
  expect(complete.held).toBe(30);
  const held = (await request("GET", `/streams/${stream.stream_id}/held`)).body;
  expect(held.records).toHaveLength(30);
  expect(new Set(held.records.flatMap((record: { reasons: string[] }) => record.reasons))).toEqual(new Set(["user:missing"]));

  // The live traces have settled past the live window's margin: one poll reads them, once.
  await Bun.sleep(Math.max(0, (activatedAt + 10 - Date.now() / 1000) * 1000));
  await request("POST", `/streams/${stream.stream_id}/operations`, { lifecycle_revision: complete.lifecycle_revision, operation: "poll_now" });
  const live = await until(async () => {
    const status = (await request("GET", `/streams/${stream.stream_id}/status`)).body;
    return status.live.counts.imported >= 3 ? status : undefined;
  }, 60_000);
  expect(live.live.counts).toMatchObject({ imported: 3, duplicates: 0 });
  // Whoever imported a trace (the worker, in full mode) woke its user's learning, which embeds the
  // user's new interactions: a search by meaning finds each live trace, imported last.
  for (const index of [0, 1, 2]) {
    const question = `Question live-${index}`;
    const search = { user_id: `u-${index}`, query: question, search_mode: "vector", top_k: 3 };
    await until(async () => {
      const found = (await fetch(`${deployment.url}/api/search_interactions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(search),
      }).then((response) => response.json())) as { interactions: { content: string }[] };
      return found.interactions.some((interaction) => interaction.content === question) ? true : undefined;
    }, 60_000);
  }

  // Every imported trace is one request of two interactions: 273 requests, none twice.
  const stored = (await fetch(`${deployment.url}/api/get_all_interactions?limit=10000`).then((response) => response.json())) as {
    interactions: { request_id: string; content: string }[];
  };
  expect(stored.interactions).toHaveLength(2 * 273);
  expect(new Set(stored.interactions.map((interaction) => interaction.request_id)).size).toBe(273);
  expect(new Set(stored.interactions.map((interaction) => interaction.content)).size).toBe(2 * 273);
}, 420_000);
