/**
 * search_profiles latency: POST /api/search_profiles through the real Elysia app (`app.handle`),
 * one request at a time, over PGlite (embedded) and PostgreSQL (full) holding 10k / 100k synthetic
 * profiles, with the query embedding included (a new query text every request, so the embedder's
 * cache misses) or excluded (query vectors warmed in that cache first).
 *
 *   bun bench/search-profiles.ts [--sizes 10000,100000] [--modes embedded,full] [--shapes users,single]
 *     [--search hybrid,vector] [--queries 200] [--warmup 20] [--per-user 100] [--max-row-seconds 60]
 *     [--postgres-url postgres://postgres@127.0.0.1:55432/postgres] [--reseed] [--no-explain]
 *
 * Profile vectors are computed once and kept in .cache/bench/; seeded databases are kept too
 * (PGlite directories under .cache/bench/pglite/, PostgreSQL databases bench_profiles_<size>_<shape>)
 * and reused while the corpus, shape and migrations are unchanged. Progress goes to stderr, the
 * report to stdout.
 */
import { parseArgs } from "node:util";
import { createEmbedder, type Embedder } from "@als/ai";
import { type CoreDeps, createProcessServices, ProcessActivity, systemClock } from "@als/core";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { GENERATOR_VERSION, profileTexts, queryTexts } from "./lib/corpus.ts";
import { type ArmSummary, captureSearchQuery, type ExplainSummary, explainSearch, type IterativeScan, writePlan } from "./lib/explain.ts";
import { databaseFacts, hostFacts, loadAverage, packageVersion } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption } from "./lib/options.ts";
import { type Corpus, openDataset, type SeedTimings, type Shape, type StorageMode, sizeLabel } from "./lib/seed.ts";
import { markdownTable, mean, ms, percentile, seconds } from "./lib/stats.ts";
import { cachedEmbeddings } from "./lib/vector-cache.ts";

type SearchKind = "hybrid" | "vector";
type EmbeddingCost = "included" | "excluded";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const CACHE_DIR = `${ROOT}/.cache/bench`;
const MODEL_DIR = defaultModelDir(ROOT);
const TOP_K = 10;

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      sizes: { type: "string", default: "10000,100000" },
      modes: { type: "string", default: "embedded,full" },
      shapes: { type: "string", default: "users,single" },
      search: { type: "string", default: "hybrid,vector" },
      queries: { type: "string", default: "200" },
      warmup: { type: "string", default: "20" },
      "per-user": { type: "string", default: "100" },
      "max-row-seconds": { type: "string", default: "60" },
      "postgres-url": { type: "string", default: "postgres://postgres@127.0.0.1:55432/postgres" },
      reseed: { type: "boolean", default: false },
      "no-explain": { type: "boolean", default: false },
    },
    strict: true,
  });
  const list = <T extends string>(name: string, raw: string, allowed: readonly T[]): T[] => {
    const items = raw
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    for (const item of items) if (!allowed.includes(item as T)) throw new Error(`--${name}: ${item} is not one of ${allowed.join(", ")}`);
    return items as T[];
  };
  const positive = (name: string, raw: string) => integerOption(name, raw, 1);
  return {
    sizes: values.sizes.split(",").map((size) => positive("sizes", size.trim())),
    modes: list<StorageMode>("modes", values.modes, ["embedded", "full"]),
    shapes: list<Shape>("shapes", values.shapes, ["users", "single"]),
    searches: list<SearchKind>("search", values.search, ["hybrid", "vector"]),
    queries: positive("queries", values.queries),
    warmup: integerOption("warmup", values.warmup, 0),
    perUser: positive("per-user", values["per-user"]),
    maxRowSeconds: positive("max-row-seconds", values["max-row-seconds"]),
    postgresUrl: values["postgres-url"],
    reseed: values.reseed,
    explain: !values["no-explain"],
  };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

interface RowResult {
  mode: StorageMode;
  size: number;
  shape: Shape;
  search: SearchKind;
  embedding: EmbeddingCost;
  samples: number[];
  /** Mean number of profiles a response held. */
  results: number;
  cappedAt?: number;
}

interface DatasetReport {
  mode: StorageMode;
  size: number;
  shape: Shape;
  location: string;
  seeded: SeedTimings | null;
  seededBefore: SeedTimings | null;
  openMillis: number;
}

interface ExplainRow {
  mode: StorageMode;
  size: number;
  shape: Shape;
  probe: string;
  probeText: string;
  search: SearchKind;
  /** Scans per arm with the drivers' setting (relaxed_order). */
  vectorScans: string;
  textScans: string;
  bySetting: Record<IterativeScan, ExplainSummary>;
}

/** A question that none of the synthetic profiles is about: the vector arm's threshold keeps nothing. */
const OFF_TOPIC_QUERY = "what is the capital of Mongolia";

const shapeLabel = (shape: Shape, perUser: number) => (shape === "users" ? `${perUser}/user` : "1 user");

async function main() {
  const opts = options();
  const startedAt = performance.now();
  const loadAtStart = loadAverage();
  progress(`sizes ${opts.sizes.join(",")}; modes ${opts.modes.join(",")}; shapes ${opts.shapes.join(",")}; search ${opts.searches.join(",")}`);

  const embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  const maxSize = Math.max(...opts.sizes);
  const vectors = await cachedEmbeddings(embedder, maxSize, profileTexts, { dir: CACHE_DIR, generatorVersion: GENERATOR_VERSION, progress });
  const corpus: Corpus = {
    texts: vectors.texts,
    vectors: vectors.vectors,
    dimensions: embedder.dimensions,
    modelId: embedder.modelId,
    generatorVersion: GENERATOR_VERSION,
  };

  // Every query text is used once in the whole run, except the warmed pool of the "excluded" rows.
  const usedQueries = new Set<string>();
  const warmPool = queryTexts(Math.max(opts.queries, opts.warmup), 0x9e3779b9, usedQueries);
  let rowSeed = 1;
  const freshQueries = (count: number) => queryTexts(count, 0x1000 + rowSeed++, usedQueries);

  const embedderAlone = await measureEmbedder(embedder, freshQueries(100), warmPool);

  const rows: RowResult[] = [];
  const datasets: DatasetReport[] = [];
  const explains: ExplainRow[] = [];
  const engines = new Map<StorageMode, string>();

  for (const mode of opts.modes) {
    for (const size of opts.sizes) {
      for (const shape of opts.shapes) {
        const t0 = performance.now();
        const dataset = await openDataset(
          { mode, size, shape, perUser: opts.perUser },
          { ...corpus, texts: corpus.texts.slice(0, size), vectors: corpus.vectors.subarray(0, size * corpus.dimensions) },
          { postgresUrl: opts.postgresUrl, pgliteRoot: `${CACHE_DIR}/pglite`, reseed: opts.reseed, progress },
        );
        datasets.push({
          mode,
          size,
          shape,
          location: dataset.location,
          seeded: dataset.seeded,
          seededBefore: dataset.seededBefore,
          openMillis: performance.now() - t0,
        });
        if (!engines.has(mode)) engines.set(mode, await databaseFacts(dataset.db));
        try {
          const deps: CoreDeps = { db: dataset.db, services: createProcessServices(dataset.db, new ProcessActivity()), embedder, now: systemClock };
          const app = buildApp({ deps, log: createLogger("error"), mode });
          const call = async (user: string, query: string, search: SearchKind) => {
            const body = JSON.stringify({ user_id: user, query, top_k: TOP_K, ...(search === "vector" ? { search_mode: "vector" } : {}) });
            const t = performance.now();
            const response = await app.handle(
              new Request("http://localhost/api/search_profiles", { method: "POST", headers: { "content-type": "application/json" }, body }),
            );
            const payload = (await response.json()) as { success?: boolean; user_profiles?: unknown[] };
            const elapsed = performance.now() - t;
            if (response.status !== 200 || !payload.success) throw new Error(`search_profiles answered ${response.status}: ${JSON.stringify(payload)}`);
            return { elapsed, results: payload.user_profiles?.length ?? 0 };
          };
          const userFor = (salt: number, i: number) => dataset.userIds[(salt * 104_729 + i * 7_919) % dataset.userIds.length]!;

          for (const search of opts.searches) {
            for (const embedding of ["included", "excluded"] as const) {
              const salt = rowSeed;
              const texts = embedding === "included" ? freshQueries(opts.warmup + opts.queries) : [...warmPool.slice(0, opts.warmup), ...warmPool];
              if (embedding === "excluded") for (const text of warmPool) await embedder.embedQuery(text);
              for (let i = 0; i < opts.warmup; i++) await call(userFor(salt, i), texts[i]!, search);
              Bun.gc(true);
              const samples: number[] = [];
              let results = 0;
              const rowStart = performance.now();
              let cappedAt: number | undefined;
              for (let i = 0; i < opts.queries; i++) {
                if (performance.now() - rowStart > opts.maxRowSeconds * 1000) {
                  cappedAt = opts.maxRowSeconds;
                  break;
                }
                const r = await call(userFor(salt, opts.warmup + i), texts[opts.warmup + i]!, search);
                samples.push(r.elapsed);
                results += r.results;
              }
              const row: RowResult = { mode, size, shape, search, embedding, samples, results: results / samples.length, ...(cappedAt ? { cappedAt } : {}) };
              rows.push(row);
              progress(
                `${mode} ${sizeLabel(size)} ${shape} ${search} embedding ${embedding}: n=${samples.length} p50 ${ms(percentile(samples, 50))} ms, p95 ${ms(percentile(samples, 95))} ms`,
              );
            }
          }

          if (opts.explain) {
            const probes = [
              ...opts.searches.map((search) => ({ probe: "typical", text: warmPool[0]!, search })),
              { probe: "off-topic", text: OFF_TOPIC_QUERY, search: opts.searches.includes("vector") ? ("vector" as const) : opts.searches[0]! },
            ];
            for (const { probe, text, search } of probes) {
              const body = { user_id: userFor(0, 0), query: text, top_k: TOP_K, ...(search === "vector" ? { search_mode: "vector" } : {}) };
              const query = await captureSearchQuery(deps, body);
              const bySetting = {} as Record<IterativeScan, ExplainSummary>;
              for (const iterative of ["relaxed_order", "off"] as const) {
                bySetting[iterative] = await explainSearch(dataset.db, query, iterative);
                writePlan(`${CACHE_DIR}/explain`, `${mode}-${sizeLabel(size)}-${shape}-${probe}-${search}-${iterative}`, query, bySetting[iterative]);
              }
              const scans = (arm: ArmSummary | undefined) => (arm ? arm.scans.join(" + ") || "(no scan)" : "–");
              explains.push({
                mode,
                size,
                shape,
                probe,
                probeText: text,
                search,
                vectorScans: scans(bySetting.relaxed_order.vectorArm),
                textScans: scans(bySetting.relaxed_order.textArm),
                bySetting,
              });
            }
          }
        } finally {
          await dataset.close();
        }
      }
    }
  }
  await embedder.close();

  report({ opts, rows, datasets, explains, engines, vectors, embedderAlone, loadAtStart, totalMillis: performance.now() - startedAt, modelId: corpus.modelId });
}

/** The query embedding on its own, for context: cache misses (new texts) and hits (the warmed pool). */
async function measureEmbedder(embedder: Embedder, fresh: string[], pool: string[]) {
  const miss: number[] = [];
  for (const text of fresh) {
    const t = performance.now();
    await embedder.embedQuery(text);
    miss.push(performance.now() - t);
  }
  for (const text of pool) await embedder.embedQuery(text);
  const hit: number[] = [];
  for (const text of pool) {
    const t = performance.now();
    await embedder.embedQuery(text);
    hit.push(performance.now() - t);
  }
  return { miss, hit };
}

function report(input: {
  opts: ReturnType<typeof options>;
  rows: RowResult[];
  datasets: DatasetReport[];
  explains: ExplainRow[];
  engines: Map<StorageMode, string>;
  vectors: Awaited<ReturnType<typeof cachedEmbeddings>>;
  embedderAlone: { miss: number[]; hit: number[] };
  loadAtStart: string;
  totalMillis: number;
  modelId: string;
}) {
  const { opts, rows, datasets, explains, engines, vectors, embedderAlone } = input;
  const out: string[] = [];
  out.push("## search_profiles latency", "");
  for (const fact of hostFacts()) out.push(`- ${fact}`);
  out.push(
    `- embedded: PGlite ${packageVersion("@electric-sql/pglite", `${ROOT}/packages/db`)} (pglite-pgvector ${packageVersion("@electric-sql/pglite-pgvector", `${ROOT}/packages/db`)}) in process, data directory on disk: ${engines.get("embedded") ?? "not run"}`,
    `- full: ${engines.get("full") ?? "not run"}`,
    `- embedder: local ${input.modelId} (onnxruntime-node ${packageVersion("onnxruntime-node", `${ROOT}/packages/compute`)}); embedQuery alone: cache miss p50 ${ms(percentile(embedderAlone.miss, 50))} ms / p95 ${ms(percentile(embedderAlone.miss, 95))} ms (n=${embedderAlone.miss.length}), cache hit p50 ${ms(percentile(embedderAlone.hit, 50), 3)} ms (n=${embedderAlone.hit.length})`,
    `- load average (1/5/15 min) at start ${input.loadAtStart}, at end ${loadAverage()}; other processes on the machine add noise`,
    "",
    `Method: POST /api/search_profiles through \`app.handle(new Request(...))\` of the real app (buildApp), top_k ${TOP_K}, one request at a time (concurrency 1), ` +
      `${opts.warmup} warm-up requests then up to ${opts.queries} timed per row (capped at ${opts.maxRowSeconds} s). Latency = performance.now() around handle() plus reading the JSON body. ` +
      `Percentiles by nearest rank (no interpolation). "included": every request has a query text never seen before, so embedQuery misses its cache and runs the model; ` +
      `"excluded": ${opts.queries} query texts whose vectors were put in the embedder's query cache first. ` +
      `Shapes: "${opts.perUser}/user" = profiles spread over users, ${opts.perUser} each, each request asks a different user; "1 user" = one user holds every profile. ` +
      `hybrid = the default search_mode (vector arm + full-text arm, RRF); vector = search_mode "vector".`,
    "",
  );

  const header = ["mode", "profiles", "shape", "search", "query embedding", "queries", "p50 ms", "p95 ms", "p99 ms", "mean ms", "results/query"];
  out.push(
    markdownTable(
      header,
      rows.map((r) => [
        r.mode,
        sizeLabel(r.size),
        shapeLabel(r.shape, opts.perUser),
        r.search,
        r.embedding,
        `${r.samples.length}${r.cappedAt ? ` (capped at ${r.cappedAt} s)` : ""}`,
        ms(percentile(r.samples, 50)),
        ms(percentile(r.samples, 95)),
        ms(percentile(r.samples, 99)),
        ms(mean(r.samples)),
        r.results.toFixed(1),
      ]),
    ),
    "",
  );

  out.push("### Seeding (not measured above)", "");
  out.push(
    `Profile vectors: ${vectors.texts.length} texts (generator ${GENERATOR_VERSION}); ${
      vectors.embedded === 0
        ? `all read from ${vectors.path.replace(`${ROOT}/`, "")} (embedded by earlier runs in ${seconds(vectors.totalEmbedMillis)} in all)`
        : `${vectors.embedded} embedded this run in ${seconds(vectors.embedMillis)} (${(vectors.embedded / (vectors.embedMillis / 1000)).toFixed(0)} texts/s), the rest read from ${vectors.path.replace(`${ROOT}/`, "")}`
    }.`,
    "Bulk load: profiles_search_text_gin dropped, rows inserted 2000 per statement (unnest of arrays, embedding as text ::vector), " +
      "the index recreated from its catalog definition with maintenance_work_mem 1GB, then VACUUM ANALYZE. A database seeded by an earlier run from the same corpus, size, shape and profiles table definition is reused.",
    "",
  );
  out.push(
    markdownTable(
      ["mode", "profiles", "shape", "database", "seeded", "insert", "GIN build", "VACUUM ANALYZE", "total"],
      datasets.map((d) => {
        const t = d.seeded ?? d.seededBefore;
        return [
          d.mode,
          sizeLabel(d.size),
          shapeLabel(d.shape, opts.perUser),
          d.location.replace(`${ROOT}/`, ""),
          d.seeded ? "this run" : `earlier run (opened in ${seconds(d.openMillis)})`,
          t ? seconds(t.insertMillis) : "?",
          t ? seconds(t.ginMillis) : "?",
          t ? seconds(t.vacuumMillis) : "?",
          t ? seconds(t.totalMillis) : "?",
        ];
      }),
    ),
    "",
  );

  if (explains.length > 0) {
    const arm = (name: string, a: ArmSummary | undefined) =>
      a ? `; ${name} ${ms(a.millis)} ms, ${a.matched} read${a.removedByFilter ? ` (${a.removedByFilter} filtered out)` : ""} → ${a.rows}` : "";
    const outcome = (e: ExplainSummary) => `${ms(e.executionMillis)} ms, ${e.resultRows} results${arm("vector arm", e.vectorArm)}${arm("text arm", e.textArm)}`;
    out.push(
      "### Planner paths (EXPLAIN ANALYZE, one search per dataset, search and probe)",
      "",
      `Probes: "typical" = "${explains.find((e) => e.probe === "typical")?.probeText ?? "?"}" (the first query of the warmed pool), ` +
        `"off-topic" = "${OFF_TOPIC_QUERY}" (no profile is about it). The user is the dataset's first (bench-user-000000, or the only one). ` +
        "Scans are those of the relaxed_order run (the drivers' setting); the last two columns run the same statement with hnsw.iterative_scan " +
        "relaxed_order and off (SET LOCAL): execution time, rows of the fused list, and per arm its time, the rows its table scans returned " +
        '("filtered out": read and then dropped by user, status, expiry or similarity threshold) → the rows it fed into the fusion (at most top_k × 4).',
      "",
    );
    out.push(
      markdownTable(
        ["mode", "profiles", "shape", "probe", "search", "vector arm scans", "text arm scans", "iterative_scan relaxed_order", "iterative_scan off"],
        explains.map((e) => [
          e.mode,
          sizeLabel(e.size),
          shapeLabel(e.shape, opts.perUser),
          e.probe,
          e.search,
          e.vectorScans,
          e.textScans,
          outcome(e.bySetting.relaxed_order),
          outcome(e.bySetting.off),
        ]),
      ),
      "",
      `Plans: ${CACHE_DIR.replace(`${ROOT}/`, "")}/explain/<mode>-<size>-<shape>-<probe>-<search>-<iterative scan>.txt`,
      "",
    );
  }
  out.push(`Total run time ${seconds(input.totalMillis)}.`);
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
