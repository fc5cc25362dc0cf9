// The worker's GET /metrics (WORKER_METRICS_PORT): its activities and LLM calls, the Temporal SDK's
// own metrics, behind METRICS_TOKEN. Needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { getAggregationOperation, startAggregationOperation, } from "@als/core";
import { parseMetricsText, sampleValue } from "@als/test-support/metrics-text.ts";
import { freeLoopbackPort } from "../src/free-loopback-port.ts";
import { openFullModeEnvironment, SHIPPING_AGGREGATE, shippingPlaybooksProject, spawnWorker, stopWorker } from "./worker-process.ts";

const TOKEN = "worker-metrics-token-0123456789";
let env: Awaited<ReturnType<typeof openFullModeEnvironment>>;
const taskQueue = `metrics-test-${randomUUID()}`;

before(async () => {
  env = await openFullModeEnvironment(async () => ({ json: SHIPPING_AGGREGATE }));
});

after(() => env?.close());

/** GET /metrics of the worker; a connection refused (still starting) answers status 0. */
async function scrape(port: number, authorization?: string): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: authorization ? { authorization } : {}, signal: AbortSignal.timeout(5_000) });
    return { status: response.status, text: await response.text() };
  } catch {
    return { status: 0, text: "" };
  }
}

test("the worker serves its activities, its LLM calls and the Temporal SDK's metrics to the token's bearer", { timeout: 120_000 }, async () => {
  const { scope, deps } = await shippingPlaybooksProject(env, taskQueue);
  const { llm, database } = env;
  const port = await freeLoopbackPort();
  const worker = spawnWorker({
    databaseUrl: database.url,
    taskQueue,
    llmBaseUrl: llm.baseUrl,
    env: { WORKER_METRICS_PORT: String(port), METRICS_TOKEN: TOKEN },
  });
  try {
    const operation = await startAggregationOperation(deps, scope, { request_id: "metrics", agent_version: "v1" });
    const until = performance.now() + 90_000;
    for (;;) {
      const receipt = await getAggregationOperation(deps, scope, operation.operation_id);
      if (receipt.status === "succeeded") break;
      assert.notEqual(receipt.status, "failed", `operation failed: ${receipt.error_code}`);
      assert.ok(performance.now() < until, "the aggregation did not finish in 90 s");
      await delay(250);
    }
    assert.equal((await scrape(port)).status, 401);
    assert.equal((await scrape(port, "Bearer another-token-0123456789")).status, 401);
    const { status, text } = await scrape(port, `Bearer ${TOKEN}`);
    assert.equal(status, 200);
    const samples = parseMetricsText(text);
    const ran = samples.filter((sample) => sample.name === "als_activity_executions_total" && sample.labels.outcome === "ok");
    assert.ok(ran.length > 0 && ran.every((sample) => sample.value >= 1), `activities counted: ${JSON.stringify(ran)}`);
    assert.ok((sampleValue(samples, "als_llm_calls_total", { stage: "playbook_aggregation", outcome: "ok" }) ?? 0) >= 1);
    assert.equal(sampleValue(samples, "als_db_pool_max_connections"), 10);
    assert.equal(sampleValue(samples, "als_temporal_sdk_metrics_up"), 1);
    assert.ok(
      samples.some((sample) => sample.name.startsWith("temporal_")),
      "the Temporal SDK's metrics follow the worker's",
    );
    assert.ok((sampleValue(samples, "process_resident_memory_bytes") ?? 0) > 0);
    assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
  } finally {
    await stopWorker(worker, "SIGTERM");
  }
});
