/**
 * Unified search over HTTP: POST /api/search of the real app served by app.listen on 127.0.0.1 (a
 * random port), hit with fetch like any client, over PGlite (embedded) and PostgreSQL (full) holding
 * 10k / 100k learnings of each type (profiles, user playbooks, agent playbooks). Latency at
 * concurrency 1, throughput at concurrency 16, the query embedding always included (every request
 * is a query text never sent before), where that time goes (p50/p95 of each stage the server reports
 * in its Server-Timing header), and recall@10 of the vector arm against an exact scan.
 *
 *   bun bench/unified-search.ts [--sizes 10000,100000] [--modes embedded,full] [--queries 200] [--warmup 20]
 *     [--concurrency 16] [--requests 480] [--max-row-seconds 30] [--rounds 4] [--recall-queries 50] [--max-recall-seconds 90]
 *     [--per-user 100] [--pool 10] [--postgres-url <server; default: bash infra/postgres.sh url>] [--reseed] [--seed-only]
 *     [--vector-index in-process|pgvector|qdrant] [--qdrant-url <server; default: QDRANT_URL>] [--qdrant-pid <its process>]
 *     [--clients in-process|process] [--embed-only]
 *
 * The floor beside every row: the same queries (its c=1 and c=16 lists) through the embedding pool
 * alone (embedQuery of a second embedder on the same model, so that its cache does not answer the
 * searches), and the ratios of the search to it. The floor and the search alternate in --rounds
 * rounds of a share of the queries each, so that both are measured on the machine as it is that
 * minute. --embed-only measures the floor alone, on fresh queries, without opening a database.
 *
 * --vector-index qdrant asks a Qdrant server for the vector arm, as the service does with QDRANT_URL:
 * collections of each seeded database's own (bench_<mode>_<size>_...), filled from it through the
 * outbox the first time and reused while they hold it. The API process's memory (RSS) is reported
 * beside every row, and the Qdrant server's too when --qdrant-pid names it.
 *
 * The bench runs as scripts/serve runs the service: in a worker thread of a process with Bun's
 * collection timer off (bench/lib/service-thread.ts).
 *
 * --clients process runs the timed rows' clients in a Bun process of their own (they still share
 * the machine's cores), so the server's event loop serves only the server, as with real agents.
 *
 * Vectors are computed once and kept in .cache/bench/; seeded databases are kept too (PGlite
 * directories .cache/bench/pglite/bench_learnings_<size>, PostgreSQL databases bench_learnings_<size>)
 * and reused while corpora, layout and table definitions are unchanged. Progress goes to stderr,
 * the report to stdout.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { createEmbedder, type Embedder } from "@als/ai";
import { SearchAgentPlaybooksRequest, SearchProfilesRequest, SearchUserPlaybooksRequest } from "@als/contract";
import {
  ChangeLogFollower,
  type CoreDeps,
  createProcessServices,
  drainVectorOutbox,
  ProcessActivity,
  prepareVectorIndex,
  searchAgentPlaybooks,
  searchProfiles,
  searchUserPlaybooks,
  systemClock,
} from "@als/core";
import { type Database, LOCAL_SCOPE, type Sql, vectorOutbox } from "@als/db";
import { QdrantVectorIndex } from "@als/vector";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { GENERATOR_VERSION, prng, profileTexts, queryTexts } from "./lib/corpus.ts";
import { type ArmSummary, captureRankedQuery, explainSearch, writePlan } from "./lib/explain.ts";
import { databaseFacts, hostFacts, loadAverage, packageVersion, postgresCpuMillis, residentMb } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, storageModesOption } from "./lib/options.ts";
import { PLAYBOOK_GENERATOR_VERSION, playbookQueryTexts, playbookTexts } from "./lib/playbooks.ts";
import { type ClientRun, runClients, runClientsInProcess, type SearchAnswer, searchClient } from "./lib/search-clients.ts";
import { type Corpus, LEARNING_TABLES, type LearningsSeedTimings, openLearningsDataset, postgresServerUrl, type StorageMode, sizeLabel } from "./lib/seed.ts";
import { inServiceThread } from "./lib/service-thread.ts";
import { OUTSIDE_SERVER, StageSamples, stageCell, stageNames } from "./lib/stage-timings.ts";
import { markdownTable, mean, ms, percentile, seconds } from "./lib/stats.ts";
import { cachedEmbeddings } from "./lib/vector-cache.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const CACHE_DIR = `${ROOT}/.cache/bench`;
const MODEL_DIR = defaultModelDir(ROOT);
/** What the unified search request asks for, per entity type. */
const TOP_K = 5;
/** The depth of the recall comparison. */
const RECALL_K = 10;

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      sizes: { type: "string", default: "10000,100000" },
      modes: { type: "string", default: "embedded,full" },
      queries: { type: "string", default: "200" },
      warmup: { type: "string", default: "20" },
      concurrency: { type: "string", default: "16" },
      requests: { type: "string", default: "480" },
      "max-row-seconds": { type: "string", default: "30" },
      rounds: { type: "string", default: "4" },
      "recall-queries": { type: "string", default: "50" },
      "max-recall-seconds": { type: "string", default: "90" },
      "per-user": { type: "string", default: "100" },
      pool: { type: "string", default: "10" },
      "postgres-url": { type: "string" },
      /** The vector arm of project-wide searches: the in-process index the service keeps by default (VECTOR_INDEX), pgvector, or a Qdrant server. */
      "vector-index": { type: "string", default: "in-process" },
      "qdrant-url": { type: "string" },
      /** The Qdrant server's process, whose memory is reported beside the API process's. */
      "qdrant-pid": { type: "string" },
      /** Where the timed rows' clients run: in this process, sharing the server's event loop, or in a process of their own. */
      clients: { type: "string", default: "in-process" },
      reseed: { type: "boolean", default: false },
      "seed-only": { type: "boolean", default: false },
      "embed-only": { type: "boolean", default: false },
    },
    strict: true,
  });
  const modes = storageModesOption(values.modes);
  return {
    sizes: values.sizes.split(",").map((size) => integerOption("sizes", size.trim(), 1)),
    modes,
    queries: integerOption("queries", values.queries, 1),
    warmup: integerOption("warmup", values.warmup, 0),
    concurrency: integerOption("concurrency", values.concurrency, 1),
    requests: integerOption("requests", values.requests, 1),
    maxRowSeconds: integerOption("max-row-seconds", values["max-row-seconds"], 1),
    rounds: integerOption("rounds", values.rounds, 1),
    recallQueries: integerOption("recall-queries", values["recall-queries"], 0),
    maxRecallSeconds: integerOption("max-recall-seconds", values["max-recall-seconds"], 1),
    perUser: integerOption("per-user", values["per-user"], 1),
    pool: integerOption("pool", values.pool, 1),
    postgresUrl: values["postgres-url"] ?? (modes.includes("full") ? postgresServerUrl(ROOT) : "postgres://unused"),
    vectorIndex: vectorIndexOption(values["vector-index"]),
    qdrantUrl: values["qdrant-url"] ?? process.env.QDRANT_URL,
    qdrantPid: values["qdrant-pid"] === undefined ? undefined : integerOption("qdrant-pid", values["qdrant-pid"], 1),
    clients: clientsOption(values.clients),
    reseed: values.reseed,
    seedOnly: values["seed-only"],
    embedOnly: values["embed-only"],
  };
}

function clientsOption(value: string): "in-process" | "process" {
  if (value === "in-process" || value === "process") return value;
  throw new Error(`--clients: "in-process" or "process", not "${value}"`);
}

function vectorIndexOption(value: string): "in-process" | "pgvector" | "qdrant" {
  if (value === "in-process" || value === "pgvector" || value === "qdrant") return value;
  throw new Error(`--vector-index: "in-process", "pgvector" or "qdrant", not "${value}"`);
}

/** The Qdrant server's version, as its root answers it. */
async function qdrantVersion(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return ((await response.json()) as { version: string }).version;
}

/** Resident memory of a process (VmRSS), in MB. */
function rssMbOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** What the recall compares: one vector-arm search as the service runs it, under the filters /api/search uses. */
type RecallTarget = "profiles (user)" | "user playbooks (user)" | "user playbooks (project)" | "agent playbooks (project)";
const RECALL_TARGETS: readonly RecallTarget[] = ["profiles (user)", "user playbooks (user)", "user playbooks (project)", "agent playbooks (project)"];

interface LoadResult {
  samples: number[];
  requests: number;
  errors: Map<number, number>;
  wallMillis: number;
  cappedAt?: number;
  /** Mean results per response, per entity type. */
  results: [number, number, number];
  /** The server's stages of the answered requests (its Server-Timing header). */
  stages: StageSamples;
  /**
   * CPU time over the run: this process's (every thread: the event loop, the model's, the graph's,
   * the collector's), and full mode's PostgreSQL processes' on this machine.
   */
  cpuMillis?: number;
}

interface RecallResult {
  queries: number;
  /** Σ |approximate ∩ exact| / Σ |exact|, exact = the true top 10 above the threshold. */
  recall: number;
  /** Mean size of the exact top 10 (fewer when fewer rows pass the filters and the threshold). */
  exactSize: number;
  /** Queries whose approximate list was shorter than the exact one. */
  short: number;
  approxMillis: number[];
  exactMillis: number[];
  /** Scans of the vector arm, approximate (production settings) and exact (enable_indexscan off). */
  approxScans: string;
  exactScans: string;
}

/** The same queries through the embedding pool alone (embedQuery, no HTTP, no database). */
interface EmbedOnly {
  single: LoadResult;
  concurrent: LoadResult;
}

interface Row {
  mode: StorageMode;
  size: number;
  single: LoadResult;
  concurrent: LoadResult;
  embedOnly: EmbedOnly;
  recall: Map<RecallTarget, RecallResult>;
  recallCappedAt?: number;
  /** Resident memory (MB) of the API process: before its vector index was opened, once ready, and after the timed rows; of the Qdrant server after them. */
  memory: { beforeIndex: number; indexReady: number; afterLoad: number; qdrant?: number };
  location: string;
  seeded: LearningsSeedTimings | null;
  seededBefore: LearningsSeedTimings | null;
  openMillis: number;
}

/**
 * `count` distinct search queries that no earlier call returned: alternately a question about the
 * user (the profiles' query generator) and a situation an agent asks guidance for (the playbooks').
 */
function queryStream() {
  const used = new Set<string>();
  let seed = 1;
  return (count: number): string[] => {
    const aboutUser = queryTexts(Math.ceil(count / 2), 0x2000 + seed++, used);
    const situations = playbookQueryTexts(Math.floor(count / 2), 0x3000 + seed++, used);
    return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? aboutUser[i / 2]! : situations[(i - 1) / 2]!));
  };
}

async function main() {
  const opts = options();
  if (opts.vectorIndex === "qdrant" && !opts.qdrantUrl) throw new Error("--vector-index qdrant needs --qdrant-url or QDRANT_URL");
  const startedAt = performance.now();
  const loadAtStart = loadAverage();
  progress(`sizes ${opts.sizes.join(",")}; modes ${opts.modes.join(",")}`);

  const embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  const nextQueries = queryStream();
  // A second pool on the same model: its query cache must not answer the searches' embeddings.
  const floorEmbedder = opts.seedOnly ? undefined : await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  if (opts.embedOnly) {
    for (const query of nextQueries(opts.warmup)) await floorEmbedder!.embedQuery(query);
    const floor = await measureEmbedOnly(floorEmbedder!, nextQueries(opts.queries), nextQueries(opts.requests), opts);
    await Promise.all([embedder.close(), floorEmbedder!.close()]);
    return reportEmbedOnly(floor, opts, embedder.modelId, loadAtStart);
  }
  const maxSize = Math.max(...opts.sizes);
  const profileVectors = await cachedEmbeddings(embedder, maxSize, profileTexts, { dir: CACHE_DIR, generatorVersion: GENERATOR_VERSION, progress });
  const playbookVectors = await cachedEmbeddings(embedder, maxSize, playbookTexts, { dir: CACHE_DIR, generatorVersion: PLAYBOOK_GENERATOR_VERSION, progress });
  const corpus = (vectors: typeof profileVectors, generatorVersion: string): Corpus => ({
    texts: vectors.texts,
    vectors: vectors.vectors,
    dimensions: embedder.dimensions,
    modelId: embedder.modelId,
    generatorVersion,
  });
  const corpora = { profiles: corpus(profileVectors, GENERATOR_VERSION), playbooks: corpus(playbookVectors, PLAYBOOK_GENERATOR_VERSION) };

  const engines = new Map<StorageMode, string>();
  const rows: Row[] = [];

  for (const mode of opts.modes) {
    for (const size of opts.sizes) {
      const t0 = performance.now();
      const dataset = await openLearningsDataset({ mode, size, perUser: opts.perUser }, corpora, {
        postgresUrl: opts.postgresUrl,
        pgliteRoot: `${CACHE_DIR}/pglite`,
        reseed: opts.reseed,
        maxConnections: opts.pool,
        progress,
      });
      const openMillis = performance.now() - t0;
      if (opts.seedOnly) {
        await dataset.close();
        continue;
      }
      if (!engines.has(mode)) engines.set(mode, await databaseFacts(dataset.db));
      const deps: CoreDeps = { db: dataset.db, services: createProcessServices(dataset.db, new ProcessActivity()), embedder, now: systemClock };
      Bun.gc(true);
      const beforeIndex = residentMb();
      let follower: ChangeLogFollower | undefined;
      if (opts.vectorIndex === "in-process") {
        // As the service keeps it: embedded saved beside its data directory (built from the tables
        // the first time, then loaded), full built from the tables at every start.
        const t = performance.now();
        follower = await ChangeLogFollower.open(dataset.db, {
          directory: mode === "embedded" ? `${dataset.location}.vector-index` : undefined,
          onError: (error) => progress(`vector index: ${String(error)}`),
        });
        await follower.drain();
        deps.vectorIndex = follower;
        progress(`${mode} ${sizeLabel(size)}: in-process vector index from the ${follower.startedFrom}, ready in ${seconds(performance.now() - t)}`);
      } else if (opts.vectorIndex === "qdrant") {
        // As a starting process prepares it; the drains the sync loop would run, all at once.
        const t = performance.now();
        const vectorIndex = new QdrantVectorIndex({ url: opts.qdrantUrl!, collectionPrefix: `bench_${mode}_${sizeLabel(size)}_` });
        await prepareVectorIndex({ db: dataset.db, vectorIndex });
        const pending = await vectorOutbox.countPending(dataset.db);
        await drainVectorOutbox({ db: dataset.db, vectorIndex }, 1000);
        deps.vectorIndex = vectorIndex;
        progress(`${mode} ${sizeLabel(size)}: Qdrant at ${opts.qdrantUrl}, ${pending} points pushed, ready in ${seconds(performance.now() - t)}`);
      }
      Bun.gc(true);
      const indexReady = residentMb();
      const app = buildApp({ deps, log: createLogger("error"), mode, serverTiming: true });
      app.listen({ hostname: "127.0.0.1", port: 0 });
      const url = `http://127.0.0.1:${app.server!.port}/api/search`;
      progress(`${mode} ${sizeLabel(size)}: serving on ${url}`);
      const users = dataset.userIds;
      try {
        const search = searchClient(url, users, TOP_K);
        // The timed rows' clients: in this process (sharing the server's event loop) or in their own.
        const load = async (queries: string[], concurrency: number, maxSeconds: number, warmup: string[]) =>
          opts.clients === "process"
            ? await runClientsInProcess({ url, users, topK: TOP_K, queries, concurrency, maxSeconds, warmup })
            : await runClients(search, queries, concurrency, maxSeconds);

        for (const query of nextQueries(opts.warmup)) await search(query);
        const { floor, single, concurrent } = await alternating(opts, nextQueries, {
          floor: (queries, concurrency, maxSeconds) => runClients(embedding(floorEmbedder!), queries, concurrency, maxSeconds),
          search: load,
          searchUsesDatabase: mode === "full",
        });
        progress(
          `${mode} ${sizeLabel(size)} embedding alone: c=1 p50 ${ms(percentile(floor.single.samples, 50))} ms, c=${opts.concurrency} ${throughput(floor.concurrent).toFixed(1)} req/s`,
        );
        progress(
          `${mode} ${sizeLabel(size)} c=1: n=${single.requests} p50 ${ms(percentile(single.samples, 50))} ms, p95 ${ms(percentile(single.samples, 95))} ms`,
        );
        progress(
          `${mode} ${sizeLabel(size)} c=${opts.concurrency}: n=${concurrent.requests} ${(concurrent.requests / (concurrent.wallMillis / 1000)).toFixed(1)} req/s, errors ${concurrent.samples.length === concurrent.requests ? 0 : concurrent.requests - concurrent.samples.length}`,
        );

        Bun.gc(true);
        const memory = {
          beforeIndex,
          indexReady,
          afterLoad: residentMb(),
          ...(opts.qdrantPid !== undefined && { qdrant: rssMbOf(opts.qdrantPid) }),
        };
        const { results: recall, cappedAt: recallCappedAt } = await measureRecall(
          deps,
          users,
          nextQueries(opts.recallQueries),
          opts.maxRecallSeconds,
          `${mode}-${sizeLabel(size)}`,
        );
        progress(`${mode} ${sizeLabel(size)} recall@${RECALL_K}: ${[...recall].map(([target, r]) => `${target} ${r.recall.toFixed(3)}`).join(", ")}`);
        rows.push({
          mode,
          size,
          single,
          concurrent,
          embedOnly: floor,
          recall,
          ...(recallCappedAt ? { recallCappedAt } : {}),
          memory,
          location: dataset.location,
          seeded: dataset.seeded,
          seededBefore: dataset.seededBefore,
          openMillis,
        });
      } finally {
        await app.stop();
        // The embedded follower saves itself here, so the next run loads its graph instead of building it.
        await follower?.close();
        await dataset.close();
      }
    }
  }
  await Promise.all([embedder.close(), floorEmbedder?.close()]);
  if (opts.seedOnly) return progress(`seeded or found seeded: ${opts.modes.join(", ")} × ${opts.sizes.map(sizeLabel).join(", ")}`);
  report({
    opts,
    rows,
    engines,
    profileVectors,
    playbookVectors,
    loadAtStart,
    totalMillis: performance.now() - startedAt,
    modelId: embedder.modelId,
    vectorIndexFact: opts.vectorIndex === "qdrant" ? `Qdrant ${await qdrantVersion(opts.qdrantUrl!)} at ${opts.qdrantUrl}` : opts.vectorIndex,
  });
}

/** What the clients saw, summed up: latency samples of the answered requests (status 200), other statuses counted. */
function loadResult(run: ClientRun): LoadResult {
  const samples: number[] = [];
  const errors = new Map<number, number>();
  const totals: [number, number, number] = [0, 0, 0];
  const stages = new StageSamples();
  for (const answer of run.answers) {
    if (answer.status !== 200) {
      errors.set(answer.status, (errors.get(answer.status) ?? 0) + 1);
      continue;
    }
    samples.push(answer.elapsed);
    stages.add(answer.timing, answer.elapsed);
    for (let i = 0; i < 3; i++) totals[i] = totals[i]! + answer.counts[i]!;
  }
  const answered = Math.max(samples.length, 1);
  return {
    samples,
    requests: run.requests,
    errors,
    wallMillis: run.wallMillis,
    ...(run.cappedAt ? { cappedAt: run.cappedAt } : {}),
    results: totals.map((total) => total / answered) as [number, number, number],
    stages,
  };
}

function vectorArm(deps: CoreDeps, target: RecallTarget, query: string, userId: string): Promise<(string | number)[]> {
  const common = { query, top_k: RECALL_K, search_mode: "vector" as const };
  switch (target) {
    case "profiles (user)":
      return searchProfiles(deps, LOCAL_SCOPE, SearchProfilesRequest.parse({ ...common, user_id: userId })).then((rows) => rows.map((r) => r.profile_id));
    case "user playbooks (user)":
      return searchUserPlaybooks(deps, LOCAL_SCOPE, SearchUserPlaybooksRequest.parse({ ...common, user_id: userId })).then((rows) =>
        rows.map((r) => r.user_playbook_id),
      );
    case "user playbooks (project)":
      return searchUserPlaybooks(deps, LOCAL_SCOPE, SearchUserPlaybooksRequest.parse(common)).then((rows) => rows.map((r) => r.user_playbook_id));
    case "agent playbooks (project)":
      return searchAgentPlaybooks(deps, LOCAL_SCOPE, SearchAgentPlaybooksRequest.parse(common)).then((rows) => rows.map((r) => r.agent_playbook_id));
  }
}

/** The planner setting that makes the same statement an exact scan: no index scan, so no HNSW (a bitmap scan of a btree stays exact). */
const EXACT = "enable_indexscan = off";

/** `work` with deps whose database is one transaction with `settings` set in it (SET LOCAL). */
function inTransaction<T>(deps: CoreDeps, settings: readonly string[], work: (deps: CoreDeps) => Promise<T>): Promise<T> {
  return deps.db.transaction(async (tx: Sql) => {
    for (const setting of settings) await tx.query(`SET LOCAL ${setting}`);
    const db: Database = { kind: deps.db.kind, query: tx.query, exec: tx.exec, transaction: (inner) => inner(tx), close: async () => {} };
    // The settings are the database's: a search answered by a vector index beside it would ignore them.
    const { vectorIndex: _beside, ...inDatabase } = deps;
    return work({ ...inDatabase, db });
  });
}

/**
 * recall@10 of the vector arm per target: the ids of the production path (HNSW with the drivers'
 * hnsw.iterative_scan relaxed_order) against the same statement run with the index disabled (the
 * exact top 10 under the same filters and similarity threshold). Queries are embedded first, so
 * only the searches are timed. Also EXPLAINs the first query of each target both ways.
 */
async function measureRecall(deps: CoreDeps, users: string[], queries: string[], maxSeconds: number, label: string) {
  for (const query of queries) await deps.embedder.embedQuery(query);
  const random = prng(0x7ec0);
  const picks = queries.map((query) => ({ query, user: users[Math.floor(random() * users.length)]! }));
  const sums = new Map(
    RECALL_TARGETS.map((target) => [target, { hits: 0, exact: 0, short: 0, queries: 0, approxMillis: [] as number[], exactMillis: [] as number[] }]),
  );
  const started = performance.now();
  let cappedAt: number | undefined;
  for (const { query, user } of picks) {
    if (performance.now() - started > maxSeconds * 1000) {
      cappedAt = maxSeconds;
      break;
    }
    for (const target of RECALL_TARGETS) {
      const sum = sums.get(target)!;
      let t = performance.now();
      const approx = await vectorArm(deps, target, query, user);
      sum.approxMillis.push(performance.now() - t);
      t = performance.now();
      const exact = await inTransaction(deps, [EXACT], (exactDeps) => vectorArm(exactDeps, target, query, user));
      sum.exactMillis.push(performance.now() - t);
      const found = new Set(approx);
      sum.hits += exact.filter((id) => found.has(id)).length;
      sum.exact += exact.length;
      if (approx.length < exact.length) sum.short++;
      sum.queries++;
    }
  }
  const results = new Map<RecallTarget, RecallResult>();
  for (const target of RECALL_TARGETS) {
    const sum = sums.get(target)!;
    const first = picks[0];
    const scans = async (settings: string[], name: string) => {
      // --recall-queries 0: no query to explain; with a vector index beside the database, no one statement to explain.
      if (!first || deps.vectorIndex) return "–";
      const captured = await captureRankedQuery(deps, (recording) => vectorArm(recording, target, first.query, first.user));
      const summary = await explainSearch(deps.db, captured, "relaxed_order", settings);
      writePlan(`${CACHE_DIR}/explain`, `unified-${label}-${target.replace(/[^a-z]+/g, "-").replace(/-$/, "")}-${name}`, captured, summary);
      const arm: ArmSummary | undefined = summary.vectorArm;
      return arm ? arm.scans.join(" + ") || "(no scan)" : "–";
    };
    results.set(target, {
      queries: sum.queries,
      recall: sum.exact === 0 ? Number.NaN : sum.hits / sum.exact,
      exactSize: sum.queries === 0 ? Number.NaN : sum.exact / sum.queries,
      short: sum.short,
      approxMillis: sum.approxMillis,
      exactMillis: sum.exactMillis,
      approxScans: await scans([], "approx"),
      exactScans: await scans([EXACT], "exact"),
    });
  }
  return { results, ...(cappedAt ? { cappedAt } : {}) };
}

/** A query's embedding through the pool alone (a text `embedder` has not seen runs the model), timed as a search answer. */
function embedding(embedder: Embedder): (query: string) => Promise<SearchAnswer> {
  return async (query) => {
    const t = performance.now();
    await embedder.embedQuery(query);
    return { elapsed: performance.now() - t, status: 200, counts: [0, 0, 0], timing: null };
  };
}

/** --embed-only: the floor from 1 and from --concurrency callers, timed and capped as the search rows are. */
async function measureEmbedOnly(embedder: Embedder, single: string[], concurrent: string[], opts: ReturnType<typeof options>): Promise<EmbedOnly> {
  Bun.gc(true);
  const singleRun = loadResult(await runClients(embedding(embedder), single, 1, opts.maxRowSeconds));
  Bun.gc(true);
  return {
    single: singleRun,
    concurrent: await withCpuTime(async () => loadResult(await runClients(embedding(embedder), concurrent, opts.concurrency, opts.maxRowSeconds))),
  };
}

type Measure = (queries: string[], concurrency: number, maxSeconds: number, warmup: string[]) => Promise<ClientRun>;

/**
 * A row's c=1 and c=16 runs, each of the floor (`floor`: the embedding alone) and of the search,
 * measured in --rounds rounds of a share of the queries each, floor and search side by side (the
 * floor first in even rounds, the search first in odd ones). This machine's model speed moves by a
 * third within a minute: a ratio of a floor and a search measured a minute apart measured that as
 * much as the search. Each round's search clients, in a process of their own, first send
 * CLIENT_WARMUP queries of their own, untimed. A run's figures are those of its rounds together:
 * every latency, the requests and wall time summed, the CPU time summed.
 */
async function alternating(
  opts: ReturnType<typeof options>,
  nextQueries: (count: number) => string[],
  measure: { floor: Measure; search: Measure; searchUsesDatabase: boolean },
): Promise<{ floor: EmbedOnly; single: LoadResult; concurrent: LoadResult }> {
  const singleQueries = nextQueries(opts.queries);
  const concurrentQueries = nextQueries(opts.requests);
  const runs = { floor: [[], []] as Timed[][], search: [[], []] as Timed[][] };
  for (let round = 0; round < opts.rounds; round++) {
    const share = (queries: readonly string[]) =>
      queries.slice(Math.floor((queries.length * round) / opts.rounds), Math.floor((queries.length * (round + 1)) / opts.rounds));
    const order = round % 2 === 0 ? (["floor", "search"] as const) : (["search", "floor"] as const);
    for (const [at, [queries, concurrency]] of (
      [
        [singleQueries, 1],
        [concurrentQueries, opts.concurrency],
      ] as const
    ).entries()) {
      for (const who of order) {
        const warmup = who === "search" ? nextQueries(CLIENT_WARMUP) : [];
        Bun.gc(true);
        const cpuBefore = cpuMillisNow(who === "search" && measure.searchUsesDatabase);
        const run = await measure[who](share(queries), concurrency, opts.maxRowSeconds / opts.rounds, warmup);
        runs[who][at]!.push({ run, cpuMillis: cpuMillisNow(who === "search" && measure.searchUsesDatabase) - cpuBefore });
      }
    }
  }
  const together = (timed: Timed[]): LoadResult => {
    const run: ClientRun = {
      answers: timed.flatMap((t) => t.run.answers),
      requests: timed.reduce((sum, t) => sum + t.run.requests, 0),
      wallMillis: timed.reduce((sum, t) => sum + t.run.wallMillis, 0),
      ...(timed.some((t) => t.run.cappedAt) && { cappedAt: opts.maxRowSeconds }),
    };
    return { ...loadResult(run), cpuMillis: timed.reduce((sum, t) => sum + t.cpuMillis, 0) };
  };
  return {
    floor: { single: together(runs.floor[0]!), concurrent: together(runs.floor[1]!) },
    single: together(runs.search[0]!),
    concurrent: together(runs.search[1]!),
  };
}

/** Untimed queries a round's search clients send first: a new process and its connection are cold. */
const CLIENT_WARMUP = 3;

interface Timed {
  run: ClientRun;
  cpuMillis: number;
}

/**
 * CPU milliseconds this process has used (every thread), and with `database` this machine's
 * PostgreSQL processes' too (NaN when unreadable). The clients are counted unless they run in a
 * process of their own (--clients process).
 */
function cpuMillisNow(database: boolean): number {
  const { user, system } = process.cpuUsage();
  const databaseMillis = database ? (postgresCpuMillis() ?? Number.NaN) : 0;
  return (user + system) / 1000 + databaseMillis;
}

/** `run`'s result with the CPU time this process spent meanwhile (all its threads). */
async function withCpuTime(run: () => Promise<LoadResult>): Promise<LoadResult> {
  const before = cpuMillisNow(false);
  const result = await run();
  return { ...result, cpuMillis: cpuMillisNow(false) - before };
}

/** CPU milliseconds per answered request of a run. */
const cpuPerRequest = (run: LoadResult) => (run.cpuMillis ?? Number.NaN) / run.samples.length;

/** Answered requests per second of wall time. */
const throughput = (run: LoadResult) => run.samples.length / (run.wallMillis / 1000);

/** --embed-only: the floor alone. */
function reportEmbedOnly(floor: EmbedOnly, opts: ReturnType<typeof options>, modelId: string, loadAtStart: string) {
  const c = opts.concurrency;
  const out = ["## The embedding alone (embedQuery through the pool, new texts)", ""];
  for (const fact of hostFacts()) out.push(`- ${fact}`);
  out.push(
    `- embedder: local ${modelId}; load average (1/5/15 min) at start ${loadAtStart}, at end ${loadAverage()}`,
    "",
    markdownTable(
      ["c=1 n", "c=1 p50 ms", "c=1 p95 ms", `c=${c} n`, `c=${c} req/s`, `c=${c} p50 ms`],
      [
        [
          String(floor.single.samples.length),
          ms(percentile(floor.single.samples, 50)),
          ms(percentile(floor.single.samples, 95)),
          String(floor.concurrent.samples.length),
          throughput(floor.concurrent).toFixed(1),
          ms(percentile(floor.concurrent.samples, 50)),
        ],
      ],
    ),
  );
  process.stdout.write(`${out.join("\n")}\n`);
}

function report(input: {
  opts: ReturnType<typeof options>;
  rows: Row[];
  engines: Map<StorageMode, string>;
  profileVectors: Awaited<ReturnType<typeof cachedEmbeddings>>;
  playbookVectors: Awaited<ReturnType<typeof cachedEmbeddings>>;
  loadAtStart: string;
  totalMillis: number;
  modelId: string;
  vectorIndexFact: string;
}) {
  const { opts, rows, engines } = input;
  const c = opts.concurrency;
  const distinct = rows.length * (opts.warmup + opts.queries + opts.requests + opts.recallQueries);
  const out: string[] = [];
  out.push("## Unified search (POST /api/search over HTTP)", "");
  for (const fact of hostFacts()) out.push(`- ${fact}`);
  out.push(
    `- embedded: PGlite ${packageVersion("@electric-sql/pglite", `${ROOT}/packages/db`)} in process, data directory on disk: ${engines.get("embedded") ?? "not run"}`,
    `- full: ${engines.get("full") ?? "not run"}; pool of ${opts.pool} connections`,
    `- embedder: local ${input.modelId} (the floor of each row: the table after the next)`,
    `- vector index: ${input.vectorIndexFact}`,
    `- load average (1/5/15 min) at start ${input.loadAtStart}, at end ${loadAverage()}; other processes on the machine add noise`,
    "",
    `Method: the real app (buildApp) served by \`app.listen\` on 127.0.0.1 at a random port from a worker thread with Bun's collection timer off (as scripts/serve runs it), ${opts.clients === "process" ? `its clients in a process of their own (sharing the machine's ${availableParallelism()} cores, not the server's event loop)` : `in the same process as the clients (they share its event loop and the machine's ${availableParallelism()} cores)`}; ` +
      `each request is \`fetch\` POST /api/search with { query, user_id, top_k: ${TOP_K}, search_mode: "hybrid" } and the default entity_types (profiles, user playbooks, agent playbooks), ` +
      `each to another user. Query embedding included: every query text of the run is distinct (about ${distinct} in all, half questions about the user, half situations an agent asks guidance for), ` +
      "so the embedder's query cache never hits (no text repeats; a repeat would be a cache hit and skip the model). Latency = fetch until the JSON body is read, of requests answered 200; " +
      "percentiles by nearest rank.",
    "",
    "Columns:",
    `- c=1 p50/p95: one client, ${opts.warmup} warm-up requests, then up to ${opts.queries} (capped at ${opts.maxRowSeconds} s), in ${opts.rounds} rounds beside the floor's (see the floor's table).`,
    `- c=${c} req/s: ${c} clients each sending its next request when the previous answered, up to ${opts.requests} requests in all and none started after ${opts.maxRowSeconds} s; answered requests / wall time. p50 at c=${c} is latency under that load.`,
    `- recall@${RECALL_K}: for ${opts.recallQueries} other queries (and a random user each), the vector arm's top ${RECALL_K} through core's search functions (search_mode "vector", the filters and similarity threshold /api/search uses) ` +
      `against the same statement with \`SET LOCAL ${EXACT}\` (an exact scan); Σ|found ∩ exact| / Σ|exact|. (user) = one user's rows (~${opts.perUser}), as /api/search searches with user_id; (project) = the whole project, as without user_id (user playbooks) or always (agent playbooks).`,
    "",
  );
  const recallCell = (r: Row, target: RecallTarget) => {
    const x = r.recall.get(target);
    return x ? x.recall.toFixed(3) : "–";
  };
  out.push(
    markdownTable(
      [
        "mode",
        "learnings/type",
        "c=1 n",
        "c=1 p50 ms",
        "c=1 p95 ms",
        `c=${c} n`,
        `c=${c} req/s`,
        `c=${c} p50 ms`,
        `c=${c} errors`,
        ...RECALL_TARGETS.map((target) => `recall@${RECALL_K} ${target}`),
        "results/request (p / up / ap)",
      ],
      rows.map((r) => [
        r.mode,
        sizeLabel(r.size),
        `${r.single.requests}${r.single.cappedAt ? ` (capped at ${r.single.cappedAt} s)` : ""}`,
        ms(percentile(r.single.samples, 50)),
        ms(percentile(r.single.samples, 95)),
        `${r.concurrent.requests}${r.concurrent.cappedAt ? ` (capped at ${r.concurrent.cappedAt} s)` : ""}`,
        throughput(r.concurrent).toFixed(1),
        ms(percentile(r.concurrent.samples, 50)),
        r.concurrent.errors.size === 0 && r.single.errors.size === 0
          ? "0"
          : [...r.single.errors, ...r.concurrent.errors].map(([status, n]) => `${n}×${status}`).join(", "),
        ...RECALL_TARGETS.map((target) => recallCell(r, target)),
        r.single.results.map((n) => n.toFixed(1)).join(" / "),
      ]),
    ),
    "",
  );

  out.push(...memoryReport(rows, opts.vectorIndex));
  out.push(...floorReport(rows, c, opts.rounds));
  out.push(...stageReport(rows, c));

  out.push(`### Vector arm: plans and the exact reference (recall@${RECALL_K} queries)`, "");
  out.push(
    `Per target: queries compared; mean size of the exact top ${RECALL_K} (smaller when fewer rows pass the filters and the similarity threshold); queries whose HNSW list came back shorter; ` +
      "time of one vector-arm search through core (production path / exact); the vector arm's scans in EXPLAIN ANALYZE of the first query (production settings / with the index disabled).",
    "",
  );
  out.push(
    markdownTable(
      [
        "mode",
        "learnings/type",
        "target",
        "queries",
        `exact top ${RECALL_K} size`,
        "short lists",
        `recall@${RECALL_K}`,
        "p50 ms production / exact",
        "scans production",
        "scans exact",
      ],
      rows.flatMap((r) =>
        RECALL_TARGETS.flatMap((target) => {
          const x = r.recall.get(target);
          if (!x) return [];
          return [
            [
              r.mode,
              sizeLabel(r.size),
              target,
              `${x.queries}${r.recallCappedAt ? ` (capped at ${r.recallCappedAt} s)` : ""}`,
              x.exactSize.toFixed(1),
              String(x.short),
              x.recall.toFixed(3),
              `${ms(percentile(x.approxMillis, 50))} / ${ms(percentile(x.exactMillis, 50))}`,
              x.approxScans,
              x.exactScans,
            ],
          ];
        }),
      ),
    ),
    "",
    `Plans: ${CACHE_DIR.replace(`${ROOT}/`, "")}/explain/unified-<mode>-<size>-<target>-<approx|exact>.txt`,
    "",
  );

  out.push("### Seeding (not measured above)", "");
  const vectorsLine = (name: string, v: Awaited<ReturnType<typeof cachedEmbeddings>>) =>
    `${name}: ${v.texts.length} texts; ${v.embedded === 0 ? `all read from ${v.path.replace(`${ROOT}/`, "")} (embedded by earlier runs in ${seconds(v.totalEmbedMillis)} in all)` : `${v.embedded} embedded this run in ${seconds(v.embedMillis)}, the rest read from ${v.path.replace(`${ROOT}/`, "")}`}`;
  out.push(
    `- ${vectorsLine(`profile vectors (generator ${GENERATOR_VERSION})`, input.profileVectors)}`,
    `- ${vectorsLine(`playbook vectors (generator ${PLAYBOOK_GENERATOR_VERSION})`, input.playbookVectors)}`,
    `- layout: per size N, N profiles and N user playbooks over N/${opts.perUser} users (${opts.perUser} each; profiles CURRENT; user playbooks 90% CURRENT, 5% PENDING, 5% ARCHIVED), ` +
      "N agent playbooks (the playbook texts in another order; 30% APPROVED, 60% PENDING, 10% REJECTED; 10% ARCHIVED; no source links). A playbook's generated text is its content (trigger and rationale empty), so its vector is the one the service computes. " +
      "Bulk load per table: HNSW and GIN indexes dropped, 2000 rows per INSERT … SELECT unnest(…), both rebuilt with maintenance_work_mem 1GB, then VACUUM ANALYZE.",
    "",
  );
  out.push(
    markdownTable(
      ["mode", "learnings/type", "database", "seeded", ...LEARNING_TABLES.map((t) => `${t} insert / HNSW / GIN`), "VACUUM ANALYZE", "total"],
      rows.map((r) => {
        const t = r.seeded ?? r.seededBefore;
        return [
          r.mode,
          sizeLabel(r.size),
          r.location.replace(`${ROOT}/`, ""),
          r.seeded ? "this run" : `earlier run (opened in ${seconds(r.openMillis)})`,
          ...LEARNING_TABLES.map((table) =>
            t
              ? `${seconds(t.tables[table].insertMillis)} / ${t.tables[table].hnswMillis === null ? "—" : seconds(t.tables[table].hnswMillis)} / ${seconds(t.tables[table].ginMillis)}`
              : "?",
          ),
          t ? seconds(t.vacuumMillis) : "?",
          t ? seconds(t.totalMillis) : "?",
        ];
      }),
    ),
    "",
  );
  out.push(`Total run time ${seconds(input.totalMillis)}; mean c=1 latency over all rows ${ms(mean(rows.flatMap((r) => r.single.samples)))} ms.`);
  process.stdout.write(`${out.join("\n")}\n`);
}

await inServiceThread(import.meta.path);
await main();

/** Where the time of the measured requests went: p50 / p95 of each stage the server reported, per row and load. */
function stageReport(rows: Row[], c: number): string[] {
  const loads = rows.flatMap((r) => [
    { title: `${r.mode} ${sizeLabel(r.size)} c=1`, result: r.single },
    { title: `${r.mode} ${sizeLabel(r.size)} c=${c}`, result: r.concurrent },
  ]);
  return [
    "### Where the time goes (the server's Server-Timing stages)",
    "",
    "p50 / p95 ms of each stage over the answered requests of the table above (n=… where only some requests ran it). " +
      "`admission`: waiting for a search slot; `config`: the project's configuration (retrieval experiment); `embed`: the query embedding (every one a cache miss here); " +
      "`profiles`, `user_playbooks`, `agent_playbooks`: each kind's ranked search (both arms in one SQL statement; the three run side by side, so they overlap); " +
      "`receipts`: exposure receipts of the user playbooks served; `evidence`: the search-evidence write (none without a credential); `serialize`: the output schema and JSON; " +
      `\`total\`: the server's whole request; \`${OUTSIDE_SERVER}\`: what the client waited for beyond it (HTTP on loopback, the event loop it shares with the server, reading and parsing the body).`,
    "",
    markdownTable(
      ["stage", ...loads.map((load) => load.title)],
      stageNames(loads.map((load) => load.result.stages)).map((stage) => [
        stage,
        ...loads.map((load) => stageCell(load.result.stages, stage, load.result.samples.length)),
      ]),
    ),
    "",
  ];
}

/** The API process's resident memory around its vector index, and the Qdrant server's. */
function memoryReport(rows: Row[], vectorIndex: string): string[] {
  return [
    "### Memory (resident, MB)",
    "",
    "The API process is the bench's own (it also holds the corpus vectors and the floor's second embedder, alike in every row): " +
      `before its vector index (${vectorIndex}) was opened, once the index was ready, and after the timed rows; the Qdrant server's after them (--qdrant-pid).`,
    "",
    markdownTable(
      ["mode", "learnings/type", "API before index", "API index ready", "API after load", "index in the API process", "Qdrant server"],
      rows.map((r) => [
        r.mode,
        sizeLabel(r.size),
        r.memory.beforeIndex.toFixed(0),
        r.memory.indexReady.toFixed(0),
        r.memory.afterLoad.toFixed(0),
        (r.memory.indexReady - r.memory.beforeIndex).toFixed(0),
        r.memory.qdrant === undefined ? "–" : r.memory.qdrant.toFixed(0),
      ]),
    ),
    "",
  ];
}

/** Each row's floor (its queries through the embedding pool alone) and the search's ratios to it, both measured in the same run. */
function floorReport(rows: Row[], c: number, rounds: number): string[] {
  return [
    "### The floor: the same queries through the embedding pool alone",
    "",
    `Each row's c=1 and c=${c} query lists through embedQuery of a second embedder (same model, its own pool and cache), in the server's process with no HTTP and no database. ` +
      `The floor and the search alternate in ${rounds} rounds of a share of each list (each round c=1, then c=${c}, floor and search side by side, the floor first in even rounds), so both see the machine as it was that minute; ` +
      `each round's search clients (a process of their own) first send ${CLIENT_WARMUP} untimed queries. ` +
      `Ratios: search c=1 p50 / embedding c=1 p50 (the target is ≤ 2), search c=${c} req/s / embedding c=${c} req/s (the target is ≥ 0.5). ` +
      `CPU: the CPU time over the c=${c} run per answered query (the process's, every thread, and in full mode the PostgreSQL processes' on this machine), and search / embedding (the c=${c} target as CPU, ≤ 2), which the machine's other load moves less than throughput; ` +
      "in-process clients (--clients in-process) are counted in it.",
    "",
    markdownTable(
      [
        "mode",
        "learnings/type",
        "embed c=1 p50 ms",
        "embed c=1 p95 ms",
        `embed c=${c} req/s`,
        "search c=1 p50 ms",
        `search c=${c} req/s`,
        "c=1 p50 ratio",
        `c=${c} throughput ratio`,
        `c=${c} CPU ms a query: embed / search`,
        `c=${c} CPU ratio`,
      ],
      rows.map((r) => {
        const embedP50 = percentile(r.embedOnly.single.samples, 50);
        const searchP50 = percentile(r.single.samples, 50);
        return [
          r.mode,
          sizeLabel(r.size),
          ms(embedP50),
          ms(percentile(r.embedOnly.single.samples, 95)),
          throughput(r.embedOnly.concurrent).toFixed(1),
          ms(searchP50),
          throughput(r.concurrent).toFixed(1),
          (searchP50 / embedP50).toFixed(2),
          (throughput(r.concurrent) / throughput(r.embedOnly.concurrent)).toFixed(2),
          `${ms(cpuPerRequest(r.embedOnly.concurrent))} / ${ms(cpuPerRequest(r.concurrent))}`,
          (cpuPerRequest(r.concurrent) / cpuPerRequest(r.embedOnly.concurrent)).toFixed(2),
        ];
      }),
    ),
    "",
  ];
}
