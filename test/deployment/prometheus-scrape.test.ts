import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";
import { randomPort, until } from "@als/test-support/server-process.ts";
import type { Subprocess } from "bun";

// Debian's Prometheus (scripts/install-prometheus.sh) scrapes the API and the worker on loopback
// every second, as an operator's would, with the alert rules of infra/prometheus/alert-rules.yml
// loaded; the test reads its answers back through Prometheus's HTTP API.

const ROOT = new URL("../../", import.meta.url).pathname;
const RULES = `${ROOT}infra/prometheus/alert-rules.yml`;
const TOKEN = "prometheus-scrape-token-0123456789";

let deployment: Deployment;
let prometheus: Subprocess;
let prometheusUrl: string;
let directory: string;

beforeAll(async () => {
  deployment = await startableDeployment("prometheus-scrape", { METRICS_TOKEN: TOKEN });
  const workerPort = randomPort();
  await deployment.start({ WORKER_METRICS_PORT: String(workerPort) });
  directory = mkdtempSync(join(tmpdir(), "als-prometheus-"));
  const apiTarget = new URL(deployment.url).host;
  writeFileSync(
    join(directory, "prometheus.yml"),
    `global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - ${RULES}
scrape_configs:
  - job_name: api
    authorization:
      credentials: ${TOKEN}
    static_configs:
      - targets: ["${apiTarget}"]
  - job_name: worker
    authorization:
      credentials: ${TOKEN}
    static_configs:
      - targets: ["127.0.0.1:${workerPort}"]
`,
  );
  const port = randomPort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = Bun.spawn(
    [
      "prometheus",
      `--config.file=${join(directory, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(directory, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=error",
    ],
    { stdout: "ignore", stderr: "inherit" },
  );
}, 120_000);

afterAll(async () => {
  prometheus?.kill("SIGTERM");
  await prometheus?.exited;
  await deployment?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});

/** An instant query's result vector, through Prometheus's HTTP API. */
async function query(expression: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  expect(body.status).toBe("success");
  return body.data.result;
}

/** Polls `expression` (bounded) until its result passes `accept`; the last result otherwise fails the test. */
async function queryUntil(expression: string, accept: (values: number[]) => boolean, deadlineMs = 30_000) {
  const values = await until(async () => {
    const result = (await query(expression)).map((sample) => Number(sample.value[1]));
    return accept(result) ? result : undefined;
  }, deadlineMs).catch(async () => (await query(expression)).map((sample) => Number(sample.value[1])));
  expect(accept(values)).toBe(true);
  return values;
}

describe("Prometheus scrapes the API and the worker", () => {
  test("both targets are up with the metrics token, and a publish is counted under its procedure", async () => {
    await queryUntil('up{job="api"}', (values) => values[0] === 1);
    await queryUntil('up{job="worker"}', (values) => values[0] === 1);
    const published = await deployment.post("/api/publish_interaction", {
      user_id: "prometheus-user",
      session_id: "prometheus-session",
      interaction_data_list: [{ role: "User", content: "My dog Biscuit needs a walk" }],
    });
    expect(published.status).toBe(200);
    await queryUntil('sum(als_http_requests_total{job="api", procedure="interactions.publish", status="200"})', (values) => values[0] === 1);
    // Read from the database at scrape time: the request just published waits to be learned from.
    await queryUntil('als_learning_waiting_users{job="api"}', (values) => values[0] === 1);
    await queryUntil('count(als_durable_work{job="api"})', (values) => (values[0] ?? 0) >= 24);
  });

  test("the worker's target carries the Temporal SDK's metrics beside its own", async () => {
    await queryUntil('als_temporal_sdk_metrics_up{job="worker"}', (values) => values[0] === 1);
    await queryUntil('count({job="worker", __name__=~"temporal_.+"})', (values) => (values[0] ?? 0) > 0);
    await queryUntil('als_db_pool_max_connections{job="worker"}', (values) => values[0] === 10);
  });

  test("an API process killed and started again is scraped again; the backlog it reads from the database is still there", async () => {
    await deployment.restartServer();
    // The restarted process's counters start from zero: nothing it answered before the kill is counted.
    await queryUntil('sum(als_http_requests_total{job="api", procedure="interactions.publish"}) or vector(0)', (values) => values[0] === 0);
    await queryUntil('up{job="api"}', (values) => values[0] === 1);
    await queryUntil('als_learning_waiting_users{job="api"}', (values) => values[0] === 1);
  });

  test("the alert rules load and evaluate without error; promtool accepts them; the operations page shows them", async () => {
    const rules = await until(async () => {
      const response = await fetch(`${prometheusUrl}/api/v1/rules`, { signal: AbortSignal.timeout(5_000) });
      const body = (await response.json()) as { data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] } };
      const loaded = body.data.groups.flatMap((group) => group.rules);
      return loaded.length > 0 && loaded.every((rule) => rule.health === "ok") ? loaded : undefined;
    }, 30_000);
    expect(rules.map((rule) => rule.name).sort()).toEqual([
      "AdmissionShedding",
      "BacklogUnreadable",
      "DurableWorkFailed",
      "LearningLagging",
      "MemoryMappingsNearLimit",
      "ServerErrors",
    ]);
    const check = Bun.spawnSync(["promtool", "check", "rules", RULES]);
    expect(check.exitCode).toBe(0);
    expect(readFileSync(`${ROOT}docs/operations.md`, "utf8")).toContain(readFileSync(RULES, "utf8"));
  });
});
