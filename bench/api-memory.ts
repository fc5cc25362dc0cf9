/**
 * What holds the API process's memory: a process of its own per storage mode, built up as the
 * server builds itself (createCoreDeps's order of parts) over a database seeded by
 * bench/unified-search.ts, its resident memory (RSS) and JS heap read after each part, then after
 * serving searches over HTTP and after a full collection. Each step's growth is what that part holds.
 *
 *   bun bench/api-memory.ts [--size 100000] [--modes embedded,full] [--searches 400] [--concurrency 4]
 *     [--postgres-url <server; default: bash infra/postgres.sh url>]
 *
 * The database must be seeded first: bun bench/unified-search.ts --seed-only --sizes <size> --modes <modes>.
 * Parts, in order: the runtime with the server's modules loaded; the database opened (embedded:
 * PGlite, its WebAssembly memory and shared buffers in this process; full: a pool of connections to
 * PostgreSQL); the embedding pool (the model in each of its threads) after its first queries; the
 * vector index as the mode's default keeps it (embedded: the in-process graph loaded from its save
 * and the text index read from the rows; full: pgvector, nothing in this process); the app serving
 * searches from clients in another process (query texts never sent before); a full collection
 * and two seconds idle. Progress goes to stderr, the report to stdout.
 */
import { heapStats } from "bun:jsc";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createEmbedder } from "@als/ai";
import { ChangeLogFollower, type CoreDeps, createProcessServices, ProcessActivity, systemClock } from "@als/core";
import { openDatabase } from "@als/db";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { queryTexts } from "./lib/corpus.ts";
import { hostFacts, loadAverage, residentMb } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, storageModesOption } from "./lib/options.ts";
import { playbookQueryTexts } from "./lib/playbooks.ts";
import { runClientsInProcess } from "./lib/search-clients.ts";
import { LEARNING_TABLES, postgresServerUrl, type StorageMode, sizeLabel, userIdsFor } from "./lib/seed.ts";
import { markdownTable } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const MB = 1024 * 1024;

interface Step {
  part: string;
  rssMb: number;
  heapMb: number;
  mappings: number;
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      size: { type: "string", default: "100000" },
      modes: { type: "string", default: "embedded,full" },
      searches: { type: "string", default: "400" },
      concurrency: { type: "string", default: "4" },
      "postgres-url": { type: "string" },
      child: { type: "string" },
    },
  });
  return {
    size: integerOption("size", values.size, 100),
    modes: storageModesOption(values.modes),
    searches: integerOption("searches", values.searches, 1),
    concurrency: integerOption("concurrency", values.concurrency, 1),
    postgresUrl: values["postgres-url"] ?? postgresServerUrl(ROOT),
    child: values.child as StorageMode | undefined,
  };
}

function step(part: string): Step {
  const measured = { part, rssMb: residentMb(), heapMb: heapStats().heapSize / MB, mappings: readFileSync("/proc/self/maps", "utf8").split("\n").length - 1 };
  progress(`${part}: RSS ${measured.rssMb.toFixed(0)} MB, JS heap ${measured.heapMb.toFixed(0)} MB, ${measured.mappings} mappings`);
  return measured;
}

/** One mode's steps, in this process (the parent runs each mode in a process of its own). */
async function measureMode(mode: StorageMode, opts: ReturnType<typeof options>): Promise<Step[]> {
  const steps = [step("runtime and modules")];
  const name = `bench_learnings_${sizeLabel(opts.size)}`;
  const postgresUrl = new URL(opts.postgresUrl);
  postgresUrl.pathname = `/${name}`;
  const db = await openDatabase(
    mode === "embedded"
      ? { kind: "pglite", dataDir: `${ROOT}/.cache/bench/pglite/${name}` }
      : { kind: "postgres", url: postgresUrl.toString(), maxConnections: 10 },
  );
  const counts = await Promise.all(LEARNING_TABLES.map(async (table) => (await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ${table}`))[0]!.n));
  if (counts.some((n) => Number(n) !== opts.size)) {
    throw new Error(`${name} (${mode}) holds ${counts.join(" / ")} rows, not ${opts.size} of each kind: seed it with bun bench/unified-search.ts --seed-only`);
  }
  Bun.gc(true);
  steps.push(step("database opened"));

  const activity = new ProcessActivity();
  const embedder = await createEmbedder({ kind: "local", modelDir: defaultModelDir(ROOT) }, activity.embeddingPools);
  const users = userIdsFor({ size: opts.size, shape: "users", perUser: 100 });
  const used = new Set<string>();
  const queries = [...queryTexts(Math.ceil(opts.searches / 2) + 16, 0x5100, used), ...playbookQueryTexts(Math.floor(opts.searches / 2), 0x5200, used)];
  await Promise.all(queries.slice(0, 16).map((query) => embedder.embedQuery(query)));
  Bun.gc(true);
  steps.push(step("embedding pool, after its first queries"));

  const deps: CoreDeps = { db, services: createProcessServices(db, activity), embedder, now: systemClock };
  let follower: ChangeLogFollower | undefined;
  if (mode === "embedded") {
    follower = await ChangeLogFollower.open(db, {
      directory: `${ROOT}/.cache/bench/pglite/${name}.vector-index`,
      onError: (error) => progress(`vector index: ${String(error)}`),
    });
    // Opening restores the graph from its save; the text index is read from the tables by the
    // first catch-up, which has at most begun its first batch here: the two are measured apart.
    Bun.gc(true);
    steps.push(step("vector graph restored from its save"));
    await follower.drain();
    deps.vectorIndex = follower;
  }
  Bun.gc(true);
  steps.push(step(mode === "embedded" ? "text index read from the tables: both indexes ready" : "vector index: pgvector, in PostgreSQL"));

  const app = buildApp({ deps, log: createLogger("error"), mode });
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const run = await runClientsInProcess({
    url: `http://127.0.0.1:${app.server!.port}/api/search`,
    users,
    topK: 5,
    queries: queries.slice(16),
    concurrency: opts.concurrency,
    maxSeconds: 120,
  });
  const failed = run.answers.filter((answer) => answer.status !== 200).length;
  if (failed > 0) throw new Error(`${failed} of ${run.answers.length} searches failed`);
  steps.push(step(`after ${run.answers.length} searches (c=${opts.concurrency})`));
  Bun.gc(true);
  await Bun.sleep(2000);
  steps.push(step("collected, 2 s idle"));

  await app.stop();
  await follower?.close();
  await embedder.close();
  await db.close();
  return steps;
}

async function main() {
  const opts = options();
  if (opts.child) {
    process.stdout.write(JSON.stringify(await measureMode(opts.child, opts)));
    return;
  }
  const loadAtStart = loadAverage();
  const results = new Map<StorageMode, Step[]>();
  for (const mode of opts.modes) {
    progress(`${mode} ${sizeLabel(opts.size)}: in a process of its own`);
    const args = ["--child", mode, "--size", String(opts.size), "--searches", String(opts.searches), "--concurrency", String(opts.concurrency)];
    const child = Bun.spawn(["bun", import.meta.path, ...args, "--postgres-url", opts.postgresUrl], { stdout: "pipe", stderr: "inherit" });
    const [output, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (exitCode !== 0) throw new Error(`the ${mode} process exited with ${exitCode}`);
    results.set(mode, JSON.parse(output) as Step[]);
  }
  const report = [
    "## What holds the API process's memory",
    "",
    ...hostFacts().map((fact) => `- ${fact}`),
    `- ${sizeLabel(opts.size)} learnings of each kind (profiles, user playbooks, agent playbooks); load average at start ${loadAtStart}, at end ${loadAverage()}`,
    "",
    "Each mode in a process of its own, its parts added in the server's order; RSS and the JS heap after each (a full collection before every reading but the searches'), and the growth of RSS over the step before: what that part holds.",
    "",
  ];
  for (const [mode, steps] of results) {
    report.push(
      `### ${mode}`,
      "",
      markdownTable(
        ["part", "RSS MB", "growth MB", "JS heap MB", "mappings"],
        steps.map((s, index) => [
          s.part,
          s.rssMb.toFixed(0),
          index === 0 ? "–" : (s.rssMb - steps[index - 1]!.rssMb).toFixed(0),
          s.heapMb.toFixed(0),
          String(s.mappings),
        ]),
      ),
      "",
    );
  }
  process.stdout.write(`${report.join("\n")}\n`);
}

await main();
