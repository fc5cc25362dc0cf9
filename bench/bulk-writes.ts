/**
 * Bulk writes against the embedding model's own pace: add_user_profile, add_user_playbook and
 * add_agent_playbook, each `--size` learnings in calls of `--batch`, and publish_interaction with
 * `--batch` interactions a call followed by the learning step's embedding of them
 * (embedPendingInteractions for each user, as each user's next learning step begins), through the real app
 * (`app.handle`) over the service's own composition (createCoreDeps from the settings a fresh
 * PGlite directory or PostgreSQL database gives: the in-process vector index embedded, pgvector in
 * full mode, or the one `--vector-index` names (VECTOR_INDEX), which decides the database's HNSW
 * indexes of the playbooks; embedded, the reconciler beside it, which keeps PGlite's planner statistics). Beside
 * each row, a second embedding pool on the same model embeds the same texts in the same batches:
 * the floor, and the row's ratio to it.
 *
 *   bun bench/bulk-writes.ts [--modes embedded,full] [--sizes 1000] [--batch 100] [--vector-index in-process|pgvector]
 *     [--postgres-url <server url; default: bash infra/postgres.sh url>]
 *
 * Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { createEmbedder } from "@als/ai";
import {
  type CoreDeps,
  createCoreDeps,
  embeddingTextOf,
  embeddingTextOfInteraction,
  embedPendingInteractions,
  INTERACTION_EMBEDDING_BATCH,
  loadSettings,
  type Reconciler,
  reconcile,
} from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { databaseFacts, hostFacts, loadAverage } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import { sizeLabel } from "./lib/seed.ts";
import { markdownTable, seconds } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname;

const USERS = 100;
const userOf = (i: number) => `bulk-user-${i % USERS}`;
/** Rounds of each row, each the floor and the writes of a share of its calls (see main). */
const ROUNDS = 4;
/** Entries of each kind written untimed before the rows (they stay in the database, beside the rows'). */
const WARMUP = 20;
/** The batches the learnings' endpoints embed: each call's entries. */
const byCall = <E>(calls: E[][]) => calls;

/**
 * Each kind's endpoint; its entry for the i-th text; the body of the c-th call; the entry's text
 * the service embeds; the batches it embeds them in; and what completes the writes after the calls.
 */
const KINDS = {
  profiles: {
    path: "/api/add_user_profile",
    entry: (content: string, i: number) => ({ user_id: userOf(i), content }),
    body: (entries: object[]) => ({ user_profiles: entries }),
    embedded: (entry: { content: string }) => entry.content,
    floorBatches: byCall,
  },
  user_playbooks: {
    path: "/api/add_user_playbook",
    entry: (content: string, i: number) => ({ user_id: userOf(i), trigger: `When case ${i} comes up`, content }),
    body: (entries: object[]) => ({ user_playbooks: entries }),
    embedded: embeddingTextOf,
    floorBatches: byCall,
  },
  agent_playbooks: {
    path: "/api/add_agent_playbook",
    entry: (content: string, i: number) => ({ agent_version: "bulk-agent", trigger: `When case ${i} comes up`, content }),
    body: (entries: object[]) => ({ agent_playbooks: entries }),
    embedded: embeddingTextOf,
    floorBatches: byCall,
  },
  // Published without vectors; each user's learning step embeds them first, INTERACTION_EMBEDDING_BATCH at a time.
  interactions: {
    path: "/api/publish_interaction",
    entry: (content: string, i: number) => ({ role: i % 2 ? "Agent" : "User", content }),
    body: (entries: object[], call: number) => ({ user_id: userOf(call), session_id: `bulk-session-${call}`, interaction_data_list: entries }),
    embedded: embeddingTextOfInteraction,
    floorBatches: <E>(calls: E[][]) =>
      Array.from({ length: USERS }, (_, user) => calls.filter((_, call) => call % USERS === user).flat()).flatMap((texts) =>
        Array.from({ length: Math.ceil(texts.length / INTERACTION_EMBEDDING_BATCH) }, (_, i) =>
          texts.slice(i * INTERACTION_EMBEDDING_BATCH, (i + 1) * INTERACTION_EMBEDDING_BATCH),
        ),
      ),
    // Embedded, the reconciler's learning steps embed them, as in the service: until none is left.
    // Full mode's worker is not run here: each user's embedding, as its learning step begins it, stands in.
    complete: async (deps: CoreDeps, calls: number, reconciling: boolean) => {
      if (!reconciling) {
        for (let user = 0; user < Math.min(calls, USERS); user++) await embedPendingInteractions(deps, LOCAL_SCOPE, userOf(user));
        return;
      }
      const pending = async () => (await deps.db.query<{ n: number }>("SELECT count(*)::int AS n FROM interactions WHERE embedding IS NULL"))[0]!.n;
      const deadline = Date.now() + 10 * 60_000;
      while ((await pending()) > 0) {
        if (Date.now() > deadline) throw new Error("the reconciler left interactions without vectors for 10 minutes");
        await Bun.sleep(10);
      }
    },
  },
} as const;
type Kind = keyof typeof KINDS;

const TOPICS = ["tea", "trains", "tax forms", "gardening", "refunds", "Spanish", "night shifts", "allergies", "invoices", "chess"];

/** Distinct learnings of about 80 characters: no cache of any kind answers a repeat. */
const textsOf = (kind: Kind, size: number) =>
  Array.from({ length: size }, (_, i) => `${kind} ${i}: prefers ${TOPICS[i % TOPICS.length]} in the ${i % 2 ? "morning" : "evening"}, case ${i * 7919}`);

function options() {
  const { values } = parseArgs({
    options: {
      modes: { type: "string", default: "embedded,full" },
      sizes: { type: "string", default: "1000" },
      batch: { type: "string", default: "100" },
      /** Unset: each mode's default (in-process embedded, pgvector in full mode). */
      "vector-index": { type: "string" },
      "postgres-url": { type: "string" },
    },
  });
  const modes = storageModesOption(values.modes!);
  return {
    modes,
    sizes: values.sizes!.split(",").map((raw) => integerOption("sizes", raw, 1)),
    batch: integerOption("batch", values.batch!, 1),
    vectorIndex: vectorIndexOption(values["vector-index"]),
    postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT),
  };
}

function vectorIndexOption(value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  if (value === "in-process" || value === "pgvector") return { VECTOR_INDEX: value };
  throw new Error(`--vector-index: "in-process" or "pgvector", not "${value}"`);
}

const progress = (message: string) => process.stderr.write(`[bulk-writes] ${message}\n`);

async function main() {
  const opts = options();
  const loadAtStart = loadAverage();
  const modelDir = defaultModelDir(ROOT);
  const floor = await createEmbedder({ kind: "local", modelDir });
  const rows: string[][] = [];
  const engines: string[] = [];
  for (const mode of opts.modes) {
    const storage = await freshServiceStorage("bulk_writes", mode, opts.postgresUrl);
    let reconciler: Reconciler | undefined;
    const graph = await createCoreDeps(loadSettings({ ...storage.env, ...opts.vectorIndex, EMBEDDING_MODEL_DIR: modelDir, LOG_LEVEL: "error" }), {
      info() {},
      error() {},
    });
    try {
      engines.push(`${mode}: ${await databaseFacts(graph.deps.db)}; vector index ${graph.deps.vectorIndex ? "in-process" : "pgvector"}`);
      // Embedded, the server's reconciler runs beside the writes, as in the service: it keeps PGlite's planner statistics.
      const embedded = mode === "embedded" ? reconcile(graph.deps, (error) => progress(`reconciler: ${String(error)}`)) : undefined;
      reconciler = embedded?.reconciler;
      const app = buildApp({ deps: embedded?.deps ?? graph.deps, log: createLogger("error"), mode });
      const call = async (path: string, body: object) => {
        const response = await app.handle(
          new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
        );
        if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      };
      // Untimed, a call of each kind and the floor's embedding of it: otherwise the first row also
      // measures the process's first calls (the first embedded row ran at 0.61–0.64, every later one above 0.7).
      for (const kind of Object.keys(KINDS) as Kind[]) {
        const spec = KINDS[kind];
        const entries = textsOf(kind, WARMUP).map((text, i) => spec.entry(`warm-up ${text}`, i));
        await floor.embedDocuments(entries.map((entry) => spec.embedded(entry as never)));
        await call(spec.path, spec.body(entries, 0));
        if ("complete" in spec) await spec.complete(graph.deps, 1, reconciler !== undefined);
      }
      for (const size of opts.sizes) {
        for (const kind of Object.keys(KINDS) as Kind[]) {
          const spec = KINDS[kind];
          const entries = textsOf(kind, size).map((text, i) => spec.entry(text, i));
          const batches = Array.from({ length: Math.ceil(size / opts.batch) }, (_, i) => entries.slice(i * opts.batch, (i + 1) * opts.batch));
          // The floor and the writes alternate in ROUNDS rounds of a share of the calls each (the floor
          // first in even rounds): the model's speed on this machine moves by a third within a minute,
          // and a floor measured before all of a row's writes set its ratio as much as the writes did.
          let floorMs = 0;
          let writeMs = 0;
          for (let round = 0; round < ROUNDS; round++) {
            const from = Math.floor((batches.length * round) / ROUNDS);
            const to = Math.floor((batches.length * (round + 1)) / ROUNDS);
            const floorRound = async () => {
              const started = performance.now();
              for (const batch of spec.floorBatches(batches.slice(from, to))) await floor.embedDocuments(batch.map((entry) => spec.embedded(entry as never)));
              floorMs += performance.now() - started;
            };
            const writeRound = async () => {
              const started = performance.now();
              for (let at = from; at < to; at++) await call(spec.path, spec.body(batches[at]!, at));
              if ("complete" in spec) await spec.complete(graph.deps, to, reconciler !== undefined);
              writeMs += performance.now() - started;
            };
            for (const measure of round % 2 === 0 ? [floorRound, writeRound] : [writeRound, floorRound]) await measure();
          }
          const perSecond = (ms: number) => (size / ms) * 1000;
          progress(`${mode} ${kind} ${sizeLabel(size)}: ${perSecond(writeMs).toFixed(0)}/s written, floor ${perSecond(floorMs).toFixed(0)}/s`);
          rows.push([
            mode,
            kind,
            sizeLabel(size),
            seconds(writeMs),
            perSecond(writeMs).toFixed(0),
            perSecond(floorMs).toFixed(0),
            (floorMs / writeMs).toFixed(2),
          ]);
        }
      }
    } finally {
      reconciler?.stop();
      await reconciler?.idle();
      await graph.close();
      await storage.drop();
    }
  }
  await floor.close();
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  console.log(`# Bulk writes against the embedding model, ${new Date().toISOString().slice(0, 10)}, commit ${commit}\n`);
  for (const fact of [...hostFacts(), ...engines]) console.log(`- ${fact}`);
  console.log(`- load average (1/5/15 min) at start ${loadAtStart}, at end ${loadAverage()}; other processes on the machine add noise`);
  console.log(
    `- ${opts.batch} learnings or interactions a call, one call at a time, over ${USERS} users; interactions: the calls, then until every one has its vector (embedded: the reconciler's learning steps embed them; full: each user's embedding as their learning step begins, in place of the worker); floor: a second embedding pool embedding the texts the service embeds (a playbook's trigger and content) in the same batches (interactions: each user's, ${INTERACTION_EMBEDDING_BATCH} at a time); each row in ${ROUNDS} rounds of a share of its calls, floor and writes side by side; ${WARMUP} entries of each kind written untimed first\n`,
  );
  console.log(markdownTable(["mode", "kind", "learnings", "time", "written/s", "floor/s", "ratio to floor"], rows));
}

await main();
