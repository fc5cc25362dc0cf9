/**
 * Search overload, embedded mode: the real service (settings, composition root, PGlite in a fresh
 * temporary directory, the local embedding model) served by app.listen on 127.0.0.1, hit over HTTP
 * by a burst of concurrent POST /api/search with long distinct queries (cache misses), then by a few
 * ordinary searches right after the burst. Prints, per answer status, the count and the latency.
 *
 *   bun bench/search-overload.ts [--requests 200] [--query-chars 8000] [--concurrency <SERVICE_SEARCH_CONCURRENCY>]
 *     [--rows 300] [--after 5] [--waves 1]
 *
 * With several waves, the process's resident memory is printed after the seeding, after each wave
 * and once the waves are over: what overload leaves held.
 *
 * Progress goes to stderr, the report to stdout.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { loadSettings } from "@als/core";
import { buildApp } from "../apps/server/src/app.ts";
import { composeService } from "../apps/server/src/compose.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { hostFacts, loadAverage } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { longQuery, overloadSeedRequests } from "./lib/overload-corpus.ts";
import { markdownTable, ms, percentile } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    requests: { type: "string", default: "200" },
    "query-chars": { type: "string", default: "8000" },
    concurrency: { type: "string" },
    rows: { type: "string", default: "300" },
    after: { type: "string", default: "5" },
    waves: { type: "string", default: "1" },
  },
  strict: true,
});
const requests = Number(values.requests);
const queryChars = Number(values["query-chars"]);
const rows = Number(values.rows);

const dataDir = await mkdtemp(`${tmpdir()}/als-search-overload-`);
const settings = loadSettings({
  DATA_DIR: dataDir,
  EMBEDDING_MODEL_DIR: defaultModelDir(ROOT),
  LOG_LEVEL: "error",
  ...(values.concurrency && { SERVICE_SEARCH_CONCURRENCY: values.concurrency }),
});
const log = createLogger("error");
const service = await composeService(settings, log);
const app = buildApp({ deps: service.deps, log, mode: service.mode, backstopMs: settings.backstopMs });
app.listen({ hostname: "127.0.0.1", port: 0 });
const base = `http://127.0.0.1:${app.server!.port}`;

async function post(path: string, body: unknown): Promise<{ status: number; ms: number; retryAfter: string | null }> {
  const startedAt = performance.now();
  const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - startedAt, retryAfter: response.headers.get("retry-after") };
}

try {
  process.stderr.write(`seeding ${rows} profiles and ${rows} user playbooks...\n`);
  for (const [path, body] of overloadSeedRequests(rows)) {
    const answer = await post(path, body);
    if (answer.status !== 200) throw new Error(`seeding ${path} answered ${answer.status}`);
  }
  const single = await post("/api/search", { query: longQuery(1_000_000, queryChars), user_id: "ana", top_k: 5 });
  process.stderr.write(`one ${queryChars}-character search alone: ${single.status} in ${ms(single.ms)} ms\n`);

  const rssMb = () => process.memoryUsage().rss / 1024 / 1024;
  const memory: [string, number][] = [["after seeding", rssMb()]];
  const answers: Awaited<ReturnType<typeof post>>[] = [];
  const after: Awaited<ReturnType<typeof post>>[] = [];
  let burstMs = 0;
  for (let wave = 1; wave <= Number(values.waves); wave++) {
    process.stderr.write(`wave ${wave}: burst of ${requests} concurrent searches...\n`);
    const burstStarted = performance.now();
    const offset = (wave - 1) * requests;
    answers.push(
      ...(await Promise.all(
        Array.from({ length: requests }, (_, index) => post("/api/search", { query: longQuery(offset + index, queryChars), user_id: "ana", top_k: 5 })),
      )),
    );
    burstMs = Math.max(burstMs, performance.now() - burstStarted);
    for (let index = 0; index < Number(values.after); index++)
      after.push(await post("/api/search", { query: "refund for a broken order", user_id: "ana", top_k: 5 }));
    memory.push([`after wave ${wave}`, rssMb()]);
  }
  Bun.gc(true);
  memory.push(["after the waves, collected", rssMb()]);

  const row = (label: string, group: { ms: number }[]) => {
    const latencies = group.map((answer) => answer.ms);
    return [label, String(group.length), ms(percentile(latencies, 50)), ms(percentile(latencies, 95)), ms(Math.max(...latencies))];
  };
  const statuses = [...new Set(answers.map((answer) => answer.status))].sort();
  const table = [
    ...statuses.map((status) => {
      const group = answers.filter((answer) => answer.status === status);
      const retry = status === 503 ? ` (Retry-After ${[...new Set(group.map((answer) => answer.retryAfter))].join("/")} s)` : "";
      return row(`burst ${status}${retry}`, group);
    }),
    row("burst, all", answers),
    row("ordinary search after the burst (one at a time)", after),
  ];
  const concurrency = settings.search.concurrency;
  console.log(
    `## Search overload, embedded: ${values.waves} wave(s) of ${requests} concurrent ${queryChars}-character searches, SERVICE_SEARCH_CONCURRENCY=${concurrency}\n`,
  );
  console.log(markdownTable(["answers", "count", "p50 ms", "p95 ms", "max ms"], table));
  console.log(
    `\n${markdownTable(
      ["resident memory of the process", "MB"],
      memory.map(([label, mb]) => [label, ms(mb)]),
    )}`,
  );
  console.log(
    `\n- slowest burst answered in ${ms(burstMs / 1000, 2)} s; one such search alone: ${ms(single.ms)} ms; corpus ${rows} profiles + ${rows} user playbooks`,
  );
  for (const fact of hostFacts()) console.log(`- ${fact}`);
  console.log(`- load average after: ${loadAverage()}`);
} finally {
  await app.stop();
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
}
