import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { LAG_BUCKETS_S, loadSettings, meteredLlm, registerLlmCallMetrics } from "@als/core";
import { serviceBacklog } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { type MetricSample, parseMetricsText, sampleValue } from "@als/test-support/metrics-text.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant } from "@als/test-support/tenants.ts";
import { Registry } from "prom-client";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

// GET /metrics, as Prometheus scrapes it: requests by declared procedure, search stages, admission,
// the database pool, the embedding pools, learning lag and durable work read at scrape time, LLM
// calls; never a user, a key, a path or a project in a label.
let svc: TestService;
let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
const llmCalls = new Registry();

beforeAll(async () => {
  scripted = await startScriptedLlm();
  svc = await startTestService({ llm: meteredLlm(scripted.llm, registerLlmCallMetrics(llmCalls)) });
  // An aggregation that failed for good, before the first scrape (scrapes a few seconds apart share one read).
  await svc.db.query(
    `INSERT INTO aggregation_operations (org_id, project_id, operation_id, request_id, agent_version, status, created_at, updated_at)
     VALUES ('local', 'default', 'op-metrics', 'req-metrics', 'agent-v0', 'failed', 0, 0)`,
  );
});
afterAll(async () => {
  await svc.close();
  await scripted.server.close();
});

async function scrape(app: { handle(request: Request): Promise<Response> } = svc.app, headers: Record<string, string> = {}) {
  const response = await app.handle(new Request("http://localhost/metrics", { headers }));
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

const samplesOf = async () => parseMetricsText((await scrape()).text);

const publish = (userId: string, project?: string) =>
  svc.call(
    "POST",
    "/api/publish_interaction",
    { user_id: userId, session_id: `s-${userId}`, interaction_data_list: [{ role: "User", content: "My dog Biscuit needs a walk" }] },
    project ? { "x-service-project": project } : {},
  );

describe("GET /metrics", () => {
  test("answers the Prometheus text format with requests counted by declared procedure, never by path", async () => {
    expect((await publish("ana")).status).toBe(200);
    expect((await svc.call("POST", "/api/search", { query: "is there a pet at home", user_id: "ana" })).status).toBe(200);
    expect((await svc.call("POST", "/api/search", { query: 42 })).status).toBe(422);
    expect((await svc.call("GET", "/api/no-such-thing/ana")).status).toBe(404);
    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toStartWith("text/plain; version=0.0.4");
    const samples = parseMetricsText(text);
    expect(sampleValue(samples, "als_http_requests_total", { procedure: "search.unified", status: "200", code: "" })).toBe(1);
    expect(sampleValue(samples, "als_http_requests_total", { procedure: "search.unified", status: "422", code: "validation_error" })).toBe(1);
    expect(sampleValue(samples, "als_http_requests_total", { procedure: "interactions.publish", status: "200", code: "" })).toBe(1);
    expect(sampleValue(samples, "als_http_requests_total", { procedure: "unmatched", status: "404", code: "not_found" })).toBe(1);
    expect(sampleValue(samples, "als_http_request_duration_seconds_count", { procedure: "search.unified" })).toBe(2);
    // The search's Server-Timing stages, each a histogram.
    for (const stage of ["admission", "embed", "serialize"]) {
      expect(sampleValue(samples, "als_request_stage_duration_seconds_count", { procedure: "search.unified", stage })).toBe(1);
    }
    expect(samples.some((sample) => sample.labels.stage === "total")).toBe(false);
    expect(text).not.toContain("no-such-thing");
  });

  test("admission, embedding pools and process metrics are read when scraped", async () => {
    const samples = await samplesOf();
    expect(sampleValue(samples, "als_admission_slots", { path: "search" })).toBe(32);
    expect(sampleValue(samples, "als_admission_slots", { path: "publish" })).toBe(16);
    expect(sampleValue(samples, "als_admission_taken", { path: "search" })).toBe(0);
    expect(sampleValue(samples, "als_admission_waiting", { path: "publish" })).toBe(0);
    for (const { path, reason } of [
      { path: "publish", reason: "no_slot" },
      { path: "search", reason: "shed" },
      { path: "search", reason: "deadline" },
    ]) {
      expect(sampleValue(samples, "als_admission_refusals_total", { path, reason })).toBe(0);
    }
    expect(sampleValue(samples, "als_embedding_pool_threads")).toBeGreaterThan(0);
    expect(sampleValue(samples, "als_embedding_batch_texts_count")).toBeGreaterThan(0);
    expect(sampleValue(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
    // The mappings this process holds, beside the kernel's limit, read from /proc when scraped.
    const mappings = sampleValue(samples, "als_process_memory_mappings")!;
    expect(mappings).toBeGreaterThan(100);
    expect(Math.abs(mappings - readFileSync("/proc/self/maps", "utf8").split("\n").length)).toBeLessThan(mappings / 2);
    expect(sampleValue(samples, "als_process_memory_mappings_limit")).toBe(Number(readFileSync("/proc/sys/vm/max_map_count", "utf8")));
    if (testMode === "full") {
      expect(sampleValue(samples, "als_db_pool_max_connections")).toBe(10);
      // The reconciler and this scrape's own backlog read may hold or await connections now
      // (packages/db/test/pool-stats.test.ts pins the figures down).
      expect(sampleValue(samples, "als_db_pool_in_use")).toBeGreaterThanOrEqual(0);
      expect(sampleValue(samples, "als_db_pool_waiting")).toBeGreaterThanOrEqual(0);
    } else {
      // PGlite is one engine inside the process, not a pool.
      expect(sampleValue(samples, "als_db_pool_max_connections")).toBeUndefined();
    }
  });

  test("learning lag and durable work are read from the database: a publish not yet learned from is lag", async () => {
    // Learning waits for the session to be quiet (six hours): ana's request is still unlearned.
    svc.clock.now += 120;
    const samples = await samplesOf();
    expect(sampleValue(samples, "als_backlog_read_ok")).toBe(1);
    expect(sampleValue(samples, "als_learning_lag_seconds")).toBeGreaterThanOrEqual(120);
    expect(sampleValue(samples, "als_learning_waiting_users")).toBe(1);
    expect(sampleValue(samples, "als_learning_waiting_projects", { le: "+Inf" })).toBe(1);
    expect(sampleValue(samples, "als_learning_waiting_projects", { le: "60" })).toBe(0);
    expect(sampleValue(samples, "als_learning_waiting_projects", { le: String(LAG_BUCKETS_S.at(-1)) })).toBe(1);
    for (const kind of serviceBacklog.DURABLE_WORK_KINDS) {
      for (const status of serviceBacklog.DURABLE_WORK_STATUSES) expect(sampleValue(samples, "als_durable_work", { kind, status })).toBeNumber();
    }
  });

  test("an aggregation that failed for good is durable work of its kind and status", async () => {
    const samples = await samplesOf();
    expect(sampleValue(samples, "als_durable_work", { kind: "aggregation", status: "failed" })).toBe(1);
    expect(sampleValue(samples, "als_durable_work", { kind: "purge", status: "queued" })).toBe(0);
  });

  test("LLM calls are counted by stage with their tokens", async () => {
    svc.clock.now += 7 * 3600;
    await svc.call("POST", "/api/finalize_session", { user_id: "ana", session_id: "s-ana" });
    await svc.learningIdle();
    const samples = parseMetricsText(await llmCalls.metrics());
    expect(sampleValue(samples, "als_llm_calls_total", { stage: "profile_extraction", outcome: "ok" })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(samples, "als_llm_tokens_total", { stage: "profile_extraction", direction: "input" })).toBeGreaterThan(0);
  });
});

describe("the series of /metrics are bounded by construction", () => {
  /** Requests that carry a user, a project and a path of their own each time. */
  async function distinctTraffic(wave: string, count: number) {
    const projects = await Promise.all(Array.from({ length: count }, (_, i) => registerProject(svc.db, { orgId: "local", projectId: `p-${wave}-${i}` })));
    for (const [i, { projectId }] of projects.entries()) {
      expect((await publish(`user-${wave}-${i}`, projectId)).status).toBe(200);
      expect((await svc.call("POST", "/api/search", { query: "pets", user_id: `user-${wave}-${i}` }, { "x-service-project": projectId })).status).toBe(200);
      expect((await svc.call("POST", "/api/search", { query: "x" }, { "x-service-project": `missing-${wave}-${i}` })).status).toBe(404);
      expect((await svc.call("GET", `/api/path-${wave}-${i}`)).status).toBe(404);
      expect((await svc.call("GET", `/trpc/missing-${wave}-${i}`)).status).toBeGreaterThanOrEqual(400);
    }
  }
  const seriesOf = (samples: MetricSample[]) => new Set(samples.map((sample) => `${sample.name}${JSON.stringify(sample.labels)}`));

  test("many users, projects and paths add no series, and no label carries any of them", async () => {
    await distinctTraffic("a", 6);
    const before = seriesOf(await samplesOf());
    await distinctTraffic("b", 18);
    const after = await samplesOf();
    expect([...seriesOf(after)].filter((series) => !before.has(series))).toEqual([]);
    expect(seriesOf(after).size).toBe(before.size);
    for (const { labels } of after) for (const value of Object.values(labels)) expect(value).not.toMatch(/user-|p-[ab]-|missing-|path-|ana/);
    // The projects' lag is there, as a distribution, without naming them. Scrapes a few seconds apart
    // share one read of the database: wait (bounded) for a read made after both waves.
    const until = performance.now() + 10_000;
    let waiting = sampleValue(after, "als_learning_waiting_projects", { le: "+Inf" }) ?? 0;
    while (waiting < 24 && performance.now() < until) {
      await Bun.sleep(500);
      waiting = sampleValue(await samplesOf(), "als_learning_waiting_projects", { le: "+Inf" }) ?? 0;
    }
    expect(waiting).toBe(24);
  });
});

describe("who may read /metrics", () => {
  const appWith = (metricsAccess: Parameters<typeof buildApp>[0]["metricsAccess"]) =>
    buildApp({ deps: svc.deps, log: createLogger("error"), mode: testMode, metricsAccess });

  test("with a token, only its bearer reads them: 401 without it or with another", async () => {
    const app = appWith({ kind: "token", token: "metrics-token-0123456789" });
    expect((await scrape(app)).status).toBe(401);
    expect((await scrape(app, { authorization: "Bearer metrics-token-012345678" })).status).toBe(401);
    const read = await scrape(app, { authorization: "Bearer metrics-token-0123456789" });
    expect(read.status).toBe(200);
    expect(read.text).toContain("als_http_requests_total");
  });

  test("a tenant's credentials are not the metrics token: its API key and its owner's session answer 401", async () => {
    const tenant = await createTenant(svc.deps);
    const app = appWith({ kind: "token", token: "metrics-token-0123456789" });
    for (const credential of [tenant.fullKey, tenant.loginSession, tenant.governanceSession]) {
      const read = await scrape(app, bearer(credential));
      expect(read.status).toBe(401);
      expect(read.text).not.toContain("als_");
    }
  });

  test("off, /metrics is not served at all", async () => {
    const read = await scrape(appWith({ kind: "off" }));
    expect(read.status).toBe(404);
    expect(JSON.parse(read.text).error).toBe("not_found");
  });

  test("hosted (AUTH_MODE=required) without METRICS_TOKEN turns it off; a token protects it; local mode leaves it open", () => {
    expect(loadSettings({ AUTH_MODE: "required" }).metrics).toEqual({ kind: "off" });
    expect(loadSettings({ AUTH_MODE: "required", METRICS_TOKEN: "metrics-token-0123456789" }).metrics).toEqual({
      kind: "token",
      token: "metrics-token-0123456789",
    });
    expect(loadSettings({}).metrics).toEqual({ kind: "open" });
    expect(() => loadSettings({ METRICS_TOKEN: "short" })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });
});
