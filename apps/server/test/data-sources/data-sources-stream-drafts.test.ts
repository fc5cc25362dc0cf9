import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type DataSourcePrefix, dataSourcePrefixes } from "@als/test-support/data-source-prefixes.ts";
import { startTestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";
import { BRAINTRUST_KEY, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";

let svc: Awaited<ReturnType<typeof startTestService>>;
let braintrust: ProviderServer;
let owner: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  braintrust = await startBraintrustServer();
  svc = await startTestService({ authMode: "required", dataSources: { providerBaseUrls: { "trace_provider_a:us": braintrust.url } } });
  owner = await createTenant(svc.deps, "drafts-owner");
  stranger = await createTenant(svc.deps, "drafts-stranger");
}, 120_000);
afterAll(async () => {
  await svc.close();
  await braintrust.close();
});

// A project holds ten connections: each test gives back the ones it made.
afterEach(async () => {
  for (const connection of (await call(PREFIXES[0]!, "GET", "")).body.connections) {
    await call(PREFIXES[0]!, "DELETE", `/connections/${connection.connection_id}`, { revision: connection.revision });
  }
});

const PREFIXES = dataSourcePrefixes(() => owner);
type Prefix = DataSourcePrefix;
const call = (prefix: Prefix, method: string, path: string, body?: unknown) => svc.call(method, `${prefix.base}${path}`, body, prefix.headers());

/** A connection with its stream selected; the stream's id. */
async function streamOf(prefix: Prefix): Promise<string> {
  const connection = await call(prefix, "POST", "/connections", { name: "drafts", api_key: BRAINTRUST_KEY });
  const stream = await call(prefix, "PUT", `/connections/${connection.body.connection_id}/stream`, {
    revision: 1,
    external_project_id: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
  });
  expect(stream.status).toBe(200);
  return stream.body.stream_id;
}

const MAPPING = {
  version: 1,
  rules: [
    {
      name: "chat",
      fields: { user: { path: "/metadata/user_id" }, input: { path: "/input/0/content" }, output: { path: "/output", transform: "first_text_block" } },
    },
  ],
};

for (const prefix of PREFIXES) {
  describe(`stream drafts under ${prefix.name}`, () => {
    test("the history draft saves past ranges and advances the stream revision; stale revisions answer 409", async () => {
      const streamId = await streamOf(prefix);
      const now = svc.clock.now;
      const saved = await call(prefix, "PUT", `/streams/${streamId}/history-draft`, { revision: 1, history_start: now - 86_400, history_end: now });
      expect(saved).toEqual({ status: 200, body: { stream_id: streamId, history: true, history_start: now - 86_400, history_end: now, revision: 2 } });
      const stale = await call(prefix, "PUT", `/streams/${streamId}/history-draft`, { revision: 1, history: false });
      expect(stale.status).toBe(409);
      expect(stale.body.detail).toContain("re-read");
      const off = await call(prefix, "PUT", `/streams/${streamId}/history-draft`, { revision: 2, history: false });
      expect(off.body).toMatchObject({ history: false, history_start: null, history_end: null, revision: 3 });
      const listed = (await call(prefix, "GET", "")).body.streams.find((stream: { stream_id: string }) => stream.stream_id === streamId);
      expect(listed).toMatchObject({ history: false, revision: 3 });
    });

    test.each([
      ["bounds with history false", (now: number) => ({ history: false, history_start: now - 10 }), "history_start"],
      ["an end not after the start", (now: number) => ({ history_start: now - 10, history_end: now - 10 }), "history_end"],
      ["an end in the future", (now: number) => ({ history_start: now - 10, history_end: now + 60 }), "history_end"],
      ["a zero start", () => ({ history_start: 0 }), "history_start"],
      ["a bound in milliseconds as text", () => ({ history_start: "1700000000" }), "history_start"],
    ])("the history draft refuses %s with 422 naming the field, and changes nothing", async (_name, body, field) => {
      const streamId = await streamOf(prefix);
      const response = await call(prefix, "PUT", `/streams/${streamId}/history-draft`, { revision: 1, ...body(svc.clock.now) });
      expect(response.status).toBe(422);
      expect(response.body.message).toContain(field);
      const stream = (await call(prefix, "GET", "")).body.streams.find((each: { stream_id: string }) => each.stream_id === streamId);
      expect(stream).toMatchObject({ revision: 1, history: true, history_start: null });
    });

    test("the mapping draft: revision 0 before a save, each save advances it and clears validation, a stale save answers 409", async () => {
      const streamId = await streamOf(prefix);
      expect((await call(prefix, "GET", `/streams/${streamId}/mapping`)).body).toEqual({
        stream_id: streamId,
        draft: null,
        revision: 0,
        validated_revision: null,
        mapping_revision: null,
        updated_at: null,
      });
      const first = await call(prefix, "PUT", `/streams/${streamId}/mapping`, { expected_revision: 0, definition: MAPPING });
      expect(first.body).toMatchObject({ draft: MAPPING, revision: 1, validated_revision: null });
      // A second "new" draft does not replace the saved one.
      const again = await call(prefix, "PUT", `/streams/${streamId}/mapping`, {
        expected_revision: 0,
        definition: { ...MAPPING, rules: [{ ...MAPPING.rules[0], name: "other" }] },
      });
      expect(again.status).toBe(409);
      expect(again.body.detail).toContain("re-read");
      const second = await call(prefix, "PUT", `/streams/${streamId}/mapping`, {
        expected_revision: 1,
        definition: { ...MAPPING, rules: [{ ...MAPPING.rules[0], name: "v2" }] },
      });
      expect(second.body).toMatchObject({ revision: 2, validated_revision: null });
      expect((await call(prefix, "PUT", `/streams/${streamId}/mapping`, { expected_revision: 1, definition: MAPPING })).status).toBe(409);
      expect((await call(prefix, "GET", `/streams/${streamId}/mapping`)).body.draft.rules[0].name).toBe("v2");
    });

    test("an invalid definition answers 422 naming where, and the draft stays", async () => {
      const streamId = await streamOf(prefix);
      await call(prefix, "PUT", `/streams/${streamId}/mapping`, { expected_revision: 0, definition: MAPPING });
      const bad = { version: 1, rules: [{ name: "chat", fields: { input: { path: "input/0" } } }] };
      const response = await call(prefix, "PUT", `/streams/${streamId}/mapping`, { expected_revision: 1, definition: bad });
      expect(response.status).toBe(422);
      expect(response.body.message).toContain("definition.rules[0].fields.input.path");
      expect((await call(prefix, "GET", `/streams/${streamId}/mapping`)).body).toMatchObject({ revision: 1, draft: MAPPING });
    });

    test("unknown streams answer 404", async () => {
      expect((await call(prefix, "GET", "/streams/dss_nope/mapping")).status).toBe(404);
      expect((await call(prefix, "PUT", "/streams/dss_nope/mapping", { expected_revision: 0, definition: MAPPING })).status).toBe(404);
      expect((await call(prefix, "PUT", "/streams/dss_nope/history-draft", { revision: 1 })).status).toBe(404);
    });
  });
}

test("another organisation's credentials reach none of a stream's drafts (404), and change nothing", async () => {
  const mine = PREFIXES[0]!;
  const streamId = await streamOf(mine);
  await call(mine, "PUT", `/streams/${streamId}/mapping`, { expected_revision: 0, definition: MAPPING });
  for (const headers of [bearer(stranger.fullKey), { ...bearer(stranger.loginSession), "x-service-project": "default" }]) {
    const base = "x-service-project" in headers ? "/api/projects/default/data-sources" : "/api/data-sources";
    expect((await svc.call("GET", `${base}/streams/${streamId}/mapping`, undefined, headers)).status).toBe(404);
    expect((await svc.call("PUT", `${base}/streams/${streamId}/mapping`, { expected_revision: 1, definition: MAPPING }, headers)).status).toBe(404);
    expect((await svc.call("PUT", `${base}/streams/${streamId}/history-draft`, { revision: 1, history: false }, headers)).status).toBe(404);
  }
  expect((await call(mine, "GET", `/streams/${streamId}/mapping`)).body.revision).toBe(1);
  expect((await call(mine, "GET", "")).body.streams.find((each: { stream_id: string }) => each.stream_id === streamId)).toMatchObject({
    revision: 1,
    history: true,
  });
});
