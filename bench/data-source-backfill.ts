/**
 * Data-source backfill under worker kills, full mode: per provider, N historical traces (every
 * `--held-every`th without a user, so held) are served by the provider's protocol server; a stream
 * is activated over them, the backfill stops at its initial budget (5,000 message units) and is
 * extended to all, the worker is killed (SIGKILL) `--kills` times during the backfill and started
 * again, and live traffic arrives meanwhile. Afterwards the database is counted: every eligible
 * trace imported exactly once, held ones listed with reasons, live traces imported once.
 *
 *   bun bench/data-source-backfill.ts [--traces 10000] [--kills 2] [--live 30] [--held-every 20]
 *     [--providers trace_provider_a,trace_provider_b,trace_provider_c] [--postgres-url URL] [--temporal 127.0.0.1:7244]
 *
 * Needs PostgreSQL (infra/postgres.sh) and the Temporal dev server (infra/temporal.sh). Progress goes
 * to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { randomPort, spawnServer, spawnWorker, stopProcess, until } from "@als/test-support/server-process.ts";
import { BRAINTRUST_KEY, type BraintrustData, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import { LANGFUSE_KEYS, type LangfuseData, startLangfuseServer } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY, type LangsmithData, startLangsmithServer } from "@als/test-support/trace-providers/langsmith-server.ts";
import {
  braintrustData,
  braintrustTraffic,
  langfuseTraffic,
  langsmithTraffic,
  SYNTHETIC_MAPPING_FIELDS,
  SYNTHETIC_PROJECTS,
  type TrafficShape,
} from "@als/test-support/trace-providers/synthetic-traffic.ts";
import type { Subprocess } from "bun";
import postgres from "postgres";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { hostFacts, loadAverage } from "./lib/machine.ts";
import { postgresUrlOption } from "./lib/options.ts";
import { markdownTable, seconds } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    traces: { type: "string", default: "10000" },
    kills: { type: "string", default: "2" },
    live: { type: "string", default: "30" },
    "held-every": { type: "string", default: "20" },
    providers: { type: "string", default: "trace_provider_a,trace_provider_b,trace_provider_c" },
    "postgres-url": { type: "string" },
    temporal: { type: "string", default: process.env.TEMPORAL_ADDRESS ?? "127.0.0.1:7244" },
  },
  strict: true,
});
const TRACES = Number(values.traces);
const KILLS = Number(values.kills);
const LIVE = Number(values.live);
const HELD_EVERY = Number(values["held-every"]);
const PROVIDERS = values.providers.split(",").map((p) => p.trim()) as (keyof typeof SYNTHETIC_PROJECTS)[];
const postgresUrl = postgresUrlOption(values["postgres-url"], ["full"], ROOT)!;

/** What each provider needs: its generated traffic, its server, its credential and mapping. */
function providerSetup(provider: keyof typeof SYNTHETIC_PROJECTS, history: TrafficShape) {
  switch (provider) {
    case "trace_provider_a": {
      const data: BraintrustData = braintrustData(braintrustTraffic(history));
      return {
        start: () => startBraintrustServer(data),
        addLive: (shape: TrafficShape) => data.events.push(...braintrustTraffic(shape)),
        credentials: { api_key: BRAINTRUST_KEY },
        fields: SYNTHETIC_MAPPING_FIELDS.trace_provider_a,
      };
    }
    case "trace_provider_b": {
      const data: LangfuseData = { traces: langfuseTraffic(history), observations: [] };
      return {
        start: () => startLangfuseServer(data),
        addLive: (shape: TrafficShape) => data.traces.push(...langfuseTraffic(shape)),
        credentials: { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
        fields: SYNTHETIC_MAPPING_FIELDS.trace_provider_b,
      };
    }
    case "trace_provider_c": {
      const data: LangsmithData = { runs: langsmithTraffic(history) };
      return {
        start: () => startLangsmithServer(data),
        addLive: (shape: TrafficShape) => data.runs.push(...langsmithTraffic(shape)),
        credentials: { api_key: LANGSMITH_KEY },
        fields: SYNTHETIC_MAPPING_FIELDS.trace_provider_c,
      };
    }
  }
}

async function runProvider(provider: keyof typeof SYNTHETIC_PROJECTS) {
  const now = Math.floor(Date.now() / 1000);
  const history: TrafficShape = { start: now - TRACES - 3600, count: TRACES, spacing: 1, heldEvery: HELD_EVERY, idPrefix: `h-${provider}` };
  const setup = providerSetup(provider, history);
  const server = await setup.start();
  const storage = await freshServiceStorage(`backfill_${provider}`, "full", postgresUrl);
  const databaseUrl = storage.env.DATABASE_URL!;
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: values.temporal,
    TEMPORAL_TASK_QUEUE: `bench-backfill-${crypto.randomUUID()}`,
    TRACE_PROVIDER_BASE_URLS: JSON.stringify({ [`${provider}:us`]: server.url }),
  };
  const port = randomPort();
  const base = `http://127.0.0.1:${port}/api/data-sources`;
  const apiServer = spawnServer(port, env);
  let worker: Subprocess = spawnWorker(env);
  const call = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${base}${path}`, { method, ...(body && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });
    return (await response.json()) as any;
  };
  try {
    await until(async () => ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.ok ? true : undefined), 60_000);
    const connection = await call("POST", "/connections", { name: provider, provider, region: "us", ...setup.credentials });
    const stream = await call("PUT", `/connections/${connection.connection_id}/stream`, { revision: 1, external_project_id: SYNTHETIC_PROJECTS[provider] });
    const window = { start: new Date(history.start * 1000).toISOString(), end: new Date(now * 1000).toISOString() };
    const sampleId = (await call("POST", `/streams/${stream.stream_id}/samples`, { revision: stream.revision, sample_window: window })).sample_id;
    await until(async () => ((await call("GET", `/samples/${sampleId}`)).status === "complete" ? true : undefined), 60_000);
    await call("PUT", `/streams/${stream.stream_id}/mapping`, {
      expected_revision: 0,
      definition: { version: 1, rules: [{ name: "chat", fields: setup.fields }] },
    });
    const preview = await call("POST", `/streams/${stream.stream_id}/preview`, { sample_id: sampleId, expected_revision: 1 });
    await call("POST", `/streams/${stream.stream_id}/mapping/validate`, { sample_id: sampleId, expected_revision: 1, sample_digest: preview.sample_digest });
    const streamRevision = (await call("GET", "")).streams[0].revision;

    const activatedAt = Math.floor(Date.now() / 1000);
    const started = performance.now();
    let status = await call("POST", `/streams/${stream.stream_id}/activate`, {
      stream_revision: streamRevision,
      mapping_revision: 1,
      history_start: history.start,
      history_end: activatedAt,
    });
    progress(`${provider}: activated, ${TRACES} historical traces`);
    setup.addLive({ start: activatedAt + 1, count: LIVE, idPrefix: `live-${provider}` });
    const readStatus = () => call("GET", `/streams/${stream.stream_id}/status`);
    const eligible = TRACES - Math.floor(TRACES / HELD_EVERY);
    const killAt = Array.from({ length: KILLS }, (_, index) => Math.floor((eligible * (index + 1)) / (KILLS + 1)));
    let budgetWaitMs = 0;
    let kills = 0;
    // From a kill until imports move again: the worker's restart and Temporal noticing the dead attempt (its heartbeat timeout).
    let downMs = 0;
    let killed: { at: number; imported: number } | null = null;
    for (;;) {
      status = await readStatus();
      const imported = status.backfill.counts.imported as number;
      if (killed && imported > killed.imported) {
        downMs += performance.now() - killed.at;
        killed = null;
      }
      if (kills < KILLS && imported >= killAt[kills]!) {
        progress(`${provider}: killing the worker at ${imported} imported`);
        await stopProcess(worker, "SIGKILL");
        // What the dead worker committed: imports counted after this are the restarted worker's.
        killed = { at: performance.now(), imported: (await readStatus()).backfill.counts.imported };
        worker = spawnWorker(env);
        kills++;
      }
      if (status.backfill.status === "budget_exhausted") {
        const waited = performance.now();
        progress(`${provider}: budget reached at ${status.backfill.message_units_used} message units; extending to all`);
        status = await call("PUT", `/streams/${stream.stream_id}/backfill-limit`, { lifecycle_revision: status.lifecycle_revision, message_units: null });
        budgetWaitMs += performance.now() - waited;
      }
      if (status.backfill.status === "complete") break;
      await Bun.sleep(200);
    }
    const elapsedMs = performance.now() - started - budgetWaitMs;
    progress(`${provider}: backfill complete in ${seconds(elapsedMs)}`);
    // Live traces settle past the live window's margin, then one poll reads them.
    await Bun.sleep(Math.max(0, (activatedAt + 8 - Date.now() / 1000) * 1000));
    status = await readStatus();
    await call("POST", `/streams/${stream.stream_id}/operations`, { lifecycle_revision: status.lifecycle_revision, operation: "poll_now" });
    status = await until(async () => {
      const current = await readStatus();
      return current.live.counts.imported >= LIVE ? current : undefined;
    }, 120_000);

    const reasons = new Map<string, number>();
    let heldListed = 0;
    for (let after: string | null | undefined; after !== null; ) {
      const page = await call("GET", `/streams/${stream.stream_id}/held${after ? `?after=${after}` : ""}`);
      heldListed += page.records.length;
      for (const record of page.records) for (const reason of record.reasons) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      after = page.next_cursor;
    }
    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const [counted] = await db.unsafe(
      `SELECT (SELECT count(*)::int FROM requests) AS requests,
              (SELECT count(*)::int FROM interactions) AS interactions,
              (SELECT count(*)::int FROM (SELECT content FROM interactions WHERE role = 'User' GROUP BY content HAVING count(*) > 1) d) AS traces_twice,
              (SELECT count(*)::int FROM data_source_receipts) AS receipts,
              (SELECT count(*)::int FROM data_source_receipts WHERE phase = 'live') AS live_receipts,
              (SELECT pg_total_relation_size('data_source_receipts'))::bigint AS receipt_bytes`,
    );
    await db.end();
    return {
      provider,
      traces: TRACES,
      eligible,
      imported: status.backfill.counts.imported as number,
      requests: counted!.requests as number,
      twice: counted!.traces_twice as number,
      duplicates: status.backfill.counts.duplicates as number,
      held: heldListed,
      reasons: [...reasons].map(([reason, n]) => `${reason} ${n}`).join(", "),
      live: `${status.live.counts.imported}/${LIVE} (${counted!.live_receipts} receipts)`,
      kills,
      elapsedMs,
      downMs,
      receiptBytes: Number(counted!.receipt_bytes) / Math.max(1, counted!.receipts as number),
    };
  } finally {
    await stopProcess(worker, "SIGTERM").catch(() => {});
    await stopProcess(apiServer, "SIGTERM").catch(() => {});
    await server.close();
    await storage.drop();
  }
}

const rows = [];
for (const provider of PROVIDERS) rows.push(await runProvider(provider));
console.log(`# Data-source backfill, full mode, ${TRACES} historical traces per provider, worker killed ${KILLS} times\n`);
for (const fact of hostFacts()) console.log(`- ${fact}`);
console.log(`- load average after the run: ${loadAverage()}\n`);
console.log(
  markdownTable(
    [
      "provider",
      "traces",
      "eligible",
      "imported",
      "requests",
      "imported twice",
      "duplicates skipped",
      "held (reasons)",
      "live imported",
      "kills",
      "backfill",
      "of it recovering",
      "traces/s",
      "traces/s running",
      "ms per import",
      "receipt bytes",
    ],
    rows.map((row) => [
      row.provider,
      String(row.traces),
      String(row.eligible),
      String(row.imported),
      String(row.requests),
      String(row.twice),
      String(row.duplicates),
      `${row.held} (${row.reasons})`,
      row.live,
      String(row.kills),
      seconds(row.elapsedMs),
      seconds(row.downMs),
      (row.traces / (row.elapsedMs / 1000)).toFixed(0),
      (row.traces / ((row.elapsedMs - row.downMs) / 1000)).toFixed(0),
      ((row.elapsedMs - row.downMs) / row.imported).toFixed(2),
      row.receiptBytes.toFixed(0),
    ]),
  ),
);
