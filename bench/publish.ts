/**
 * publish_interaction throughput: POST /api/publish_interaction through the real Elysia app
 * (`app.handle`), with the real local embedding model, over PGlite (embedded) and PostgreSQL (full),
 * at concurrency 1 and 16, with learning excluded (no LLM, no orchestrator: the publish path alone)
 * or included (`?wait_for_response=true` + force_extraction, the scripted OpenAI-compatible LLM on
 * 127.0.0.1 and the in-process Reconciler, as test/support/service.ts wires them).
 *
 *   bun bench/publish.ts [--mode embedded|full|both] [--concurrency 1,16] [--extraction excluded,included]
 *     [--requests 300] [--warmup 6] [--users 50] [--max-row-seconds 20]
 *     [--per-session <requests in each session of a user; default 4>]
 *     [--padding-words 0] [--input-budget <tokens; default: the project default>] [--pairs-per-request 1]
 *     [--postgres-url <server url; default: bash infra/postgres.sh url>] [--signals none|temporal]
 *
 * --signals temporal (excluded rows): the orchestrator sends the learning workflow's signals to
 * the Temporal server of `bash infra/temporal.sh address` as the full-mode service does
 * (learningSignalsTo in apps/server/src/temporal-orchestrator.ts), on a task queue of the row's own with no worker.
 *
 * --padding-words appends that many words (a pasted log) to every user turn, so windows outgrow the
 * input budget; included rows report the LLM tokens per learned request either way.
 * --pairs-per-request: turn pairs (User, Agent) per request; 5 is the batch of 10 interactions.
 *
 * Every row starts from a fresh, empty database (a PGlite directory under .cache/bench/pglite/, or a
 * new database bench_publish_<hex> on the PostgreSQL server), removed again at the end of the row.
 * Progress goes to stderr, the report to stdout.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { createEmbedder, type Embedder } from "@als/ai";
import { type CoreDeps, createProcessServices, ProcessActivity, reconcile, systemClock } from "@als/core";
import { type Database, openDatabase, type StorageOptions } from "@als/db";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { Client, Connection } from "@temporalio/client";
import postgres from "postgres";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { learningSignalsTo } from "../apps/server/src/temporal-orchestrator.ts";
import { databaseFacts, hostFacts, loadAverage, packageVersion } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption } from "./lib/options.ts";
import { markdownTable, mean, ms, percentile, seconds } from "./lib/stats.ts";
import { turnPair, wordCount } from "./lib/turns.ts";

type StorageMode = "embedded" | "full";
type Extraction = "excluded" | "included";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const CACHE_DIR = `${ROOT}/.cache/bench`;
const MODEL_DIR = defaultModelDir(ROOT);

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      mode: { type: "string", default: "both" },
      concurrency: { type: "string", default: "1,16" },
      extraction: { type: "string", default: "excluded,included" },
      requests: { type: "string", default: "300" },
      warmup: { type: "string", default: "6" },
      users: { type: "string", default: "50" },
      "per-session": { type: "string", default: "4" },
      "max-row-seconds": { type: "string", default: "20" },
      "postgres-url": { type: "string" },
      "padding-words": { type: "string", default: "0" },
      "pairs-per-request": { type: "string", default: "1" },
      "input-budget": { type: "string" },
      signals: { type: "string", default: "none" },
    },
    strict: true,
  });
  const modes: StorageMode[] = values.mode === "both" ? ["embedded", "full"] : values.mode === "embedded" || values.mode === "full" ? [values.mode] : [];
  if (modes.length === 0) throw new Error(`--mode: ${values.mode} is not one of embedded, full, both`);
  const extractions = values.extraction
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of extractions) if (item !== "excluded" && item !== "included") throw new Error(`--extraction: ${item} is not one of excluded, included`);
  const users = integerOption("users", values.users, 1);
  const concurrencies = values.concurrency.split(",").map((item) => integerOption("concurrency", item.trim(), 1));
  if (values.signals !== "none" && values.signals !== "temporal") throw new Error(`--signals: ${values.signals} is not one of none, temporal`);
  for (const c of concurrencies) if (c > users) throw new Error(`--concurrency ${c} exceeds --users ${users}: each client owns its own users`);
  return {
    modes,
    concurrencies,
    extractions: extractions as Extraction[],
    requests: integerOption("requests", values.requests, 1),
    warmup: integerOption("warmup", values.warmup, 0),
    users,
    perSession: integerOption("per-session", values["per-session"], 1),
    maxRowSeconds: integerOption("max-row-seconds", values["max-row-seconds"], 1),
    pairsPerRequest: integerOption("pairs-per-request", values["pairs-per-request"], 1),
    postgresUrl: values["postgres-url"],
    paddingWords: integerOption("padding-words", values["padding-words"], 0),
    inputBudget: values["input-budget"] === undefined ? undefined : integerOption("input-budget", values["input-budget"], 1),
    signals: values.signals as "none" | "temporal",
  };
}

/** Other wordings of the scripted model's profile facts (test/support/scripted-llm.ts PROFILE_FACTS). */
const REWORDED: Record<string, string> = {
  "Owns a golden retriever named Biscuit": "Has a golden retriever called Biscuit",
  "Is vegan": "Follows a vegan diet",
  "Is in Lisbon this week": "Is staying in Lisbon this week",
};

/**
 * The scripted model of the learning tests, except that about half of its profile extractions
 * (chosen by a hash of the prompt) word a fact differently: a restatement in other words is not
 * dropped as a known text, so it goes through the deduplication call and a merge, as real models'
 * restatements do. With the facts always worded the same, deduplication would never reach the LLM.
 */
function benchReply(request: FakeLlmRequest): FakeLlmReply {
  const reply = scriptedReply(request);
  if (request.schemaName !== "profile_extraction" || !("json" in reply) || BigInt(Bun.hash(request.user)) % 2n === 0n) return reply;
  const { profiles } = reply.json as { profiles: { content: string }[] };
  return { json: { profiles: profiles.map((profile) => ({ ...profile, content: REWORDED[profile.content] ?? profile.content })) } };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** The Temporal dev server's address (infra/temporal.sh). */
function temporalAddress(): string {
  const result = Bun.spawnSync(["bash", `${ROOT}/infra/temporal.sh`, "address"], { stdout: "pipe", stderr: "pipe" });
  const address = result.stdout.toString().trim();
  if (result.exitCode !== 0 || !address) throw new Error(`bash infra/temporal.sh address failed (${result.exitCode}): ${result.stderr.toString().trim()}`);
  return address;
}

/** The server URL of infra/postgres.sh (any database on it: the bench creates and drops its own). */
function postgresServerUrl(): string {
  const result = Bun.spawnSync(["bash", `${ROOT}/infra/postgres.sh`, "url"], { stdout: "pipe", stderr: "pipe" });
  const url = result.stdout.toString().trim();
  if (result.exitCode !== 0 || !url.startsWith("postgres")) {
    throw new Error(
      `bash infra/postgres.sh url failed (${result.exitCode}): ${result.stderr.toString().trim()}; start it (bash infra/postgres.sh start) or pass --postgres-url`,
    );
  }
  return url;
}

interface FreshDatabase {
  db: Database;
  storage: StorageOptions;
  location: string;
  drop: () => Promise<void>;
}

/** An empty, migrated database for one row: a PGlite directory on disk, or a new PostgreSQL database (as test/support/postgres-database.ts makes them). */
async function freshDatabase(mode: StorageMode, serverUrl: string | undefined): Promise<FreshDatabase> {
  const name = `bench_publish_${crypto.randomUUID().replaceAll("-", "")}`;
  if (mode === "embedded") {
    const dataDir = `${CACHE_DIR}/pglite/${name}`;
    const storage: StorageOptions = { kind: "pglite", dataDir };
    const db = await openDatabase(storage);
    return {
      db,
      storage,
      location: `${dataDir.replace(`${ROOT}/`, "")}/`,
      drop: async () => {
        await db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  const storage: StorageOptions = { kind: "postgres", url: url.toString() };
  const drop = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
  let db: Database;
  try {
    db = await openDatabase(storage);
  } catch (error) {
    await drop();
    throw error;
  }
  return {
    db,
    storage,
    location: `${url.host}/${name}`,
    drop: async () => {
      await db.close();
      await drop();
    },
  };
}

interface RowResult {
  mode: StorageMode;
  extraction: Extraction;
  concurrency: number;
  samples: number[];
  interactions: number;
  wallMillis: number;
  cappedAt?: number;
  /** Included rows: responses with learning_status "done", learnings created, LLM calls by schema. */
  done: number;
  profiles: number;
  playbooks: number;
  llmCalls: Record<string, number>;
  /** Included rows: tokens of the LLM calls during the timed requests (llm_usage; the scripted server counts words). */
  llmTokens: { input: number; output: number };
  reconcilerErrors: number;
  /** Included rows: time from the last response until the reconciler was idle; with Temporal signals, until every signal was sent. */
  drainMillis: number;
  /** With --signals temporal: learning signals sent during the row (warm-up included). */
  signalsSent: number;
}

interface PublishResponse {
  success?: boolean;
  learning_status?: string;
  interactions_created?: number;
  profiles_created?: number;
  user_playbooks_created?: number;
}

async function runRow(
  mode: StorageMode,
  extraction: Extraction,
  concurrency: number,
  opts: ReturnType<typeof options>,
  shared: { embedder: Embedder; llm?: Awaited<ReturnType<typeof startScriptedLlm>>; serverUrl?: string; engines: Map<StorageMode, string> },
): Promise<RowResult> {
  const fresh = await freshDatabase(mode, shared.serverUrl);
  if (!shared.engines.has(mode)) shared.engines.set(mode, await databaseFacts(fresh.db));
  const included = extraction === "included";
  const base: CoreDeps = {
    db: fresh.db,
    services: createProcessServices(fresh.db, new ProcessActivity()),
    embedder: shared.embedder,
    now: systemClock,
    storage: fresh.storage,
    ...(included && { llm: shared.llm!.llm }),
  };
  const reconcilerErrors: unknown[] = [];
  const reconciled = included ? reconcile(base, (error) => reconcilerErrors.push(error)) : undefined;
  const reconciler = reconciled?.reconciler;
  const temporal = !included && opts.signals === "temporal" ? await Connection.connect({ address: temporalAddress() }) : undefined;
  const signals = temporal && learningSignalsTo(new Client({ connection: temporal }), `bench-publish-${crypto.randomUUID()}`, base, createLogger("error"));
  const deps: CoreDeps =
    reconciled?.deps ??
    (signals ? { ...base, orchestrator: { schedule: (kind, scope, id) => (kind === "learning" ? signals.request({ scope, userId: id }) : undefined) } } : base);
  const app = buildApp({ deps, log: createLogger("error"), mode });
  const path = `/api/publish_interaction${included ? "?wait_for_response=true" : ""}`;

  // The n-th request of user u carries turn pairs n·p … n·p + p − 1 of that user.
  const pairsOf = (u: number, n: number) => Array.from({ length: opts.pairsPerRequest }, (_, j) => turnPair(u, n * opts.pairsPerRequest + j));
  const padding = opts.paddingWords > 0 ? `\n${Array.from({ length: opts.paddingWords }, (_, i) => `log${i % 97}`).join(" ")}` : "";
  const publish = async (userId: string, sessionId: string, pairs: ReturnType<typeof turnPair>[]) => {
    const body = JSON.stringify({
      user_id: userId,
      session_id: sessionId,
      source: "bench",
      force_extraction: true,
      interaction_data_list: pairs.flatMap((pair) => [{ ...pair.user, content: pair.user.content + padding }, pair.agent]),
    });
    const t = performance.now();
    const response = await app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body }));
    const payload = (await response.json()) as PublishResponse;
    const elapsed = performance.now() - t;
    if (response.status !== 200 || !payload.success) throw new Error(`publish_interaction answered ${response.status}: ${JSON.stringify(payload)}`);
    return { elapsed, payload };
  };

  const llmTokens = async () =>
    (
      await fresh.db.query<{ input: number; output: number }>(
        "SELECT coalesce(sum(input_tokens), 0)::int AS input, coalesce(sum(output_tokens), 0)::int AS output FROM llm_usage",
      )
    )[0]!;
  try {
    if (included && opts.inputBudget !== undefined) {
      const response = await app.handle(
        new Request("http://localhost/api/update_config", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ learning_input_budget_tokens: opts.inputBudget }),
        }),
      );
      if (response.status !== 200) throw new Error(`update_config answered ${response.status}: ${await response.text()}`);
    }
    // Warm-up on users of its own: the first statements on the new database, the LLM client's connection.
    for (let i = 0; i < opts.warmup; i++) await publish(`bench-warmup-${i % 3}`, `bench-warmup-${i % 3}-s`, pairsOf(10_000 + (i % 3), i));
    await reconciler?.idle();
    // The planner statistics a running service has: autovacuum (full) or the reconciler (embedded)
    // analyzes a table within a minute of its growth, while a row lasts seconds. Never analyzed,
    // the tables' indexes look alike to the planner (see plannerStatistics in packages/db).
    await fresh.db.exec("ANALYZE");
    const llmBefore = llmCallCounts(shared.llm);
    const tokensBefore = await llmTokens();
    Bun.gc(true);

    // Client w owns the users u with u % concurrency == w and publishes for them in turn: one user
    // never has two publishes in flight, as with one client per user.
    const perUser = new Array<number>(opts.users).fill(0);
    const samples: number[] = [];
    let issued = 0;
    let interactions = 0;
    let done = 0;
    let profiles = 0;
    let playbooks = 0;
    let cappedAt: number | undefined;
    const deadline = performance.now() + opts.maxRowSeconds * 1000;
    const client = async (w: number) => {
      const mine = Array.from({ length: opts.users }, (_, u) => u).filter((u) => u % concurrency === w);
      for (let k = 0; ; k++) {
        if (issued >= opts.requests) return;
        if (performance.now() > deadline) {
          cappedAt = opts.maxRowSeconds;
          return;
        }
        issued++;
        const u = mine[k % mine.length]!;
        const n = perUser[u]!++;
        const userId = `bench-user-${String(u).padStart(3, "0")}`;
        const r = await publish(userId, `${userId}-s${Math.floor(n / opts.perSession)}`, pairsOf(u, n));
        samples.push(r.elapsed);
        interactions += r.payload.interactions_created ?? 0;
        if (r.payload.learning_status === "done") done++;
        profiles += r.payload.profiles_created ?? 0;
        playbooks += r.payload.user_playbooks_created ?? 0;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, (_, w) => client(w)));
    const wallMillis = performance.now() - started;
    const t = performance.now();
    reconciler?.stop();
    await reconciler?.idle();
    const unsent = await signals?.close(60_000);
    const signalsSent = signals?.sent ?? 0;
    if (unsent) throw new Error(`${unsent} learning signals not sent within 60 s of the row's end`);
    const drainMillis = included || signals ? performance.now() - t : 0;
    const llmAfter = llmCallCounts(shared.llm);
    const tokensAfter = await llmTokens();
    const llmCalls = Object.fromEntries(Object.entries(llmAfter).map(([schema, count]) => [schema, count - (llmBefore[schema] ?? 0)]));
    return {
      mode,
      extraction,
      concurrency,
      samples,
      interactions,
      wallMillis,
      ...(cappedAt ? { cappedAt } : {}),
      done,
      profiles,
      playbooks,
      llmCalls,
      llmTokens: { input: tokensAfter.input - tokensBefore.input, output: tokensAfter.output - tokensBefore.output },
      reconcilerErrors: reconcilerErrors.length,
      drainMillis,
      signalsSent,
    };
  } finally {
    reconciler?.stop();
    await reconciler?.idle();
    await signals?.close(0);
    await temporal?.close();
    await fresh.drop();
  }
}

function llmCallCounts(llm: Awaited<ReturnType<typeof startScriptedLlm>> | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of llm?.server.requests ?? []) counts[request.schemaName ?? "text"] = (counts[request.schemaName ?? "text"] ?? 0) + 1;
  return counts;
}

async function main() {
  const opts = options();
  const startedAt = performance.now();
  const loadAtStart = loadAverage();
  const serverUrl = opts.modes.includes("full") ? (opts.postgresUrl ?? postgresServerUrl()) : undefined;
  progress(
    `modes ${opts.modes.join(",")}; extraction ${opts.extractions.join(",")}; concurrency ${opts.concurrencies.join(",")}; up to ${opts.requests} requests or ${opts.maxRowSeconds} s per row`,
  );

  const t0 = performance.now();
  const embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  await embedder.embedDocuments(["warm the model up", "a second text"]);
  const modelLoadMillis = performance.now() - t0;
  const llm = opts.extractions.includes("included") ? await startScriptedLlm(benchReply) : undefined;
  const embedPair = await measureEmbedPair(embedder);

  const rows: RowResult[] = [];
  const engines = new Map<StorageMode, string>();
  try {
    for (const mode of opts.modes) {
      for (const extraction of opts.extractions) {
        for (const concurrency of opts.concurrencies) {
          const row = await runRow(mode, extraction, concurrency, opts, { embedder, llm, serverUrl, engines });
          rows.push(row);
          const seconds = row.wallMillis / 1000;
          progress(
            `${mode} extraction ${extraction} c=${concurrency}: ${row.samples.length} requests in ${seconds.toFixed(1)} s, ${(row.samples.length / seconds).toFixed(1)} req/s, ` +
              `p50 ${ms(percentile(row.samples, 50))} ms, p95 ${ms(percentile(row.samples, 95))} ms${extraction === "included" ? `, done ${row.done}/${row.samples.length}` : ""}`,
          );
        }
      }
    }
  } finally {
    await llm?.server.close();
    await embedder.close();
  }
  report({ opts, rows, engines, loadAtStart, modelLoadMillis, embedPair, modelId: embedder.modelId, serverUrl, totalMillis: performance.now() - startedAt });
}

/** embedDocuments of one turn pair on its own (what every publish pays before its transaction), for context. */
async function measureEmbedPair(embedder: Embedder) {
  const samples: number[] = [];
  for (let i = 0; i < 30; i++) {
    const pair = turnPair(20_000 + i, 0);
    const t = performance.now();
    await embedder.embedDocuments([pair.user.content, pair.agent.content]);
    samples.push(performance.now() - t);
  }
  return samples;
}

function report(input: {
  opts: ReturnType<typeof options>;
  rows: RowResult[];
  engines: Map<StorageMode, string>;
  loadAtStart: string;
  modelLoadMillis: number;
  embedPair: number[];
  modelId: string;
  serverUrl?: string;
  totalMillis: number;
}) {
  const { opts, rows, engines, embedPair } = input;
  const words = { user: [] as number[], agent: [] as number[] };
  for (let u = 0; u < 20; u++)
    for (let n = 0; n < 20; n++) {
      const pair = turnPair(u, n);
      words.user.push(wordCount(pair.user.content));
      words.agent.push(wordCount(pair.agent.content));
    }
  const out: string[] = [];
  out.push("## publish_interaction throughput", "");
  for (const fact of hostFacts()) out.push(`- ${fact}`);
  out.push(
    `- embedded: PGlite ${packageVersion("@electric-sql/pglite", `${ROOT}/packages/db`)} in process, a fresh data directory on disk per row: ${engines.get("embedded") ?? "not run"}`,
    `- full: ${engines.get("full") ? `${engines.get("full")}; a fresh database per row on ${new URL(input.serverUrl!).host}, pool of 10 connections (the driver's default)` : "not run"}`,
    `- embedder: local ${input.modelId} (loaded and warmed in ${seconds(input.modelLoadMillis)} before any row); embedDocuments of one turn pair alone: p50 ${ms(percentile(embedPair, 50))} ms, p95 ${ms(percentile(embedPair, 95))} ms (n=${embedPair.length})`,
    `- load average (1/5/15 min) at start ${input.loadAtStart}, at end ${loadAverage()}; other processes on the machine add noise`,
    "",
    `Method: POST /api/publish_interaction through \`app.handle(new Request(...))\` of the real app (buildApp), each request ${opts.pairsPerRequest === 1 ? "one turn pair" : `${opts.pairsPerRequest} turn pairs (${2 * opts.pairsPerRequest} interactions)`} (User ${Math.min(...words.user)}–${Math.max(...words.user)} words, ` +
      `Agent ${Math.min(...words.agent)}–${Math.max(...words.agent)} words; about a third of the user turns state a fact the scripted model extracts, about one agent turn in eight carries expert_content), ` +
      `force_extraction true, over ${opts.users} users with ${opts.perSession} requests per session. Each row starts from an empty database; ${opts.warmup} warm-up requests (other users) first, ` +
      `then up to ${opts.requests} timed requests (capped at ${opts.maxRowSeconds} s). Concurrency c = c clients, each publishing for its own users one request at a time ` +
      `(client w owns users u with u mod c = w, so no user has two publishes in flight).`,
    "",
    "Columns:",
    "- mode: embedded = PGlite in process; full = PostgreSQL server. Learning runs on the in-process Reconciler in both (as test/support/service.ts wires it), not on the Temporal worker.",
    `- extraction: excluded = no LLM and no orchestrator (${opts.signals === "temporal" ? "the orchestrator sends Temporal learning signals as the full-mode service does, see the signals column" : "no orchestrator"}, no Reconciler): the publish path alone (validation and one transaction; the interactions' vectors are left to the learning step, which does not run here), no wait; ` +
      "included = deps.llm is the real OpenAI-compatible client pointed at the scripted LLM server on 127.0.0.1 (test/support/scripted-llm.ts; same process, answers at once; " +
      "about half of its profile extractions word a fact differently, so restatements reach the deduplication call and merges), the Reconciler is wired, and each request " +
      "uses ?wait_for_response=true, so it returns once its window was extracted (profiles and playbooks), deduplicated and committed.",
    "- c: concurrent clients.",
    "- requests: timed requests completed (each publishes 2 interactions).",
    "- interactions/s, requests/s: completed during the row divided by its wall time (first request sent to last response read).",
    "- p50 / p95 ms: latency of one request, performance.now() around handle() plus reading the JSON body; nearest-rank percentiles. " +
      "With wait_for_response the handler checks the learning status right after its commit, then after pauses of 10, 20, 40, 80, 160 ms and then every 250 ms " +
      "(at about 0, 10, 30, 70, 150, 310, 560 ms …), so an included latency is rounded up to the next check.",
    "- mean ms: mean latency of one request.",
    '- done: included rows, responses with learning_status "done" (the rest "deferred").',
    "- signals: with --signals temporal, how many learning signals were sent (after each answer, coalesced per user; warm-up included) and how long after the row's last answer the last one was.",
    "",
  );
  out.push(
    markdownTable(
      ["mode", "extraction", "c", "requests", "interactions/s", "requests/s", "p50 ms", "p95 ms", "mean ms", "done", "signals"],
      rows.map((r) => {
        const perSecond = (count: number) => (count / (r.wallMillis / 1000)).toFixed(1);
        return [
          r.mode,
          r.extraction,
          String(r.concurrency),
          `${r.samples.length}${r.cappedAt ? ` (capped at ${r.cappedAt} s)` : ""}`,
          perSecond(r.interactions),
          perSecond(r.samples.length),
          ms(percentile(r.samples, 50)),
          ms(percentile(r.samples, 95)),
          ms(mean(r.samples)),
          r.extraction === "included" ? `${r.done}/${r.samples.length}` : "–",
          r.extraction === "excluded" && opts.signals === "temporal" ? `${r.signalsSent} sent, the last ${ms(r.drainMillis)} ms after` : "–",
        ];
      }),
    ),
    "",
  );
  const included = rows.filter((r) => r.extraction === "included");
  if (included.length > 0) {
    out.push(
      "### What the included rows' learning did",
      "",
      "LLM calls the scripted server answered during the timed requests (by structured-output schema), learnings the responses reported as created, " +
        "LLM tokens per request whose learning was done (llm_usage: the scripted server reports words as tokens; " +
        `padding ${opts.paddingWords} words per user turn, input budget ${opts.inputBudget ?? "the project default"}), ` +
        "the time the Reconciler still needed after the last response (its passes end once no user is due), and errors its passes reported.",
      "",
      markdownTable(
        [
          "mode",
          "c",
          "requests",
          "profile_extraction",
          "playbook_extraction",
          "learning_deduplication",
          "profiles created",
          "playbooks created",
          "input tokens / learned request",
          "output tokens / learned request",
          "drain after last response",
          "reconciler errors",
        ],
        included.map((r) => [
          r.mode,
          String(r.concurrency),
          String(r.samples.length),
          String(r.llmCalls.profile_extraction ?? 0),
          String(r.llmCalls.playbook_extraction ?? 0),
          String(r.llmCalls.learning_deduplication ?? 0),
          String(r.profiles),
          String(r.playbooks),
          r.done > 0 ? (r.llmTokens.input / r.done).toFixed(0) : "–",
          r.done > 0 ? (r.llmTokens.output / r.done).toFixed(0) : "–",
          `${ms(r.drainMillis)} ms`,
          String(r.reconcilerErrors),
        ]),
      ),
      "",
    );
  }
  out.push(`Total run time ${seconds(input.totalMillis)}.`);
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
