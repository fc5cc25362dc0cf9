/**
 * Bulk writes against the embedding model's own pace: add_user_profile, add_user_playbook and
 * add_agent_playbook, each `--size` learnings in calls of `--batch`, through the real app
 * (`app.handle`) over the service's own composition (createCoreDeps from the settings a fresh
 * PGlite directory or PostgreSQL database gives: the in-process vector index embedded, pgvector in
 * full mode; embedded, the reconciler beside it, which keeps PGlite's planner statistics). Beside
 * each row, a second embedding pool on the same model embeds the same texts in the same batches:
 * the floor, and the row's ratio to it.
 *
 *   bun bench/bulk-writes.ts [--modes embedded,full] [--sizes 1000] [--batch 100]
 *     [--postgres-url <server url; default: bash infra/postgres.sh url>]
 *
 * Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { createEmbedder } from "@als/ai";
import { createCoreDeps, embeddingTextOf, loadSettings, type Reconciler, reconcile } from "@als/core";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { databaseFacts, hostFacts, loadAverage } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import { sizeLabel } from "./lib/seed.ts";
import { markdownTable, seconds } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** Each kind's endpoint, its entry for the i-th text, and the entry's text the service embeds. */
const KINDS = {
  profiles: {
    path: "/api/add_user_profile",
    list: "user_profiles",
    entry: (content: string, i: number) => ({ user_id: `bulk-user-${i % 100}`, content }),
    embedded: (entry: { content: string }) => entry.content,
  },
  user_playbooks: {
    path: "/api/add_user_playbook",
    list: "user_playbooks",
    entry: (content: string, i: number) => ({ user_id: `bulk-user-${i % 100}`, trigger: `When case ${i} comes up`, content }),
    embedded: embeddingTextOf,
  },
  agent_playbooks: {
    path: "/api/add_agent_playbook",
    list: "agent_playbooks",
    entry: (content: string, i: number) => ({ agent_version: "bulk-agent", trigger: `When case ${i} comes up`, content }),
    embedded: embeddingTextOf,
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
      "postgres-url": { type: "string" },
    },
  });
  const modes = storageModesOption(values.modes!);
  return {
    modes,
    sizes: values.sizes!.split(",").map((raw) => integerOption("sizes", raw, 1)),
    batch: integerOption("batch", values.batch!, 1),
    postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT),
  };
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
    const graph = await createCoreDeps(loadSettings({ ...storage.env, EMBEDDING_MODEL_DIR: modelDir, LOG_LEVEL: "error" }), { info() {}, error() {} });
    try {
      engines.push(`${mode}: ${await databaseFacts(graph.deps.db)}; vector index ${graph.deps.vectorIndex ? "in-process" : "pgvector"}`);
      // Embedded, the server's reconciler runs beside the writes, as in the service: it keeps PGlite's planner statistics.
      const embedded = mode === "embedded" ? reconcile(graph.deps, (error) => progress(`reconciler: ${String(error)}`)) : undefined;
      reconciler = embedded?.reconciler;
      const app = buildApp({ deps: embedded?.deps ?? graph.deps, log: createLogger("error"), mode });
      for (const size of opts.sizes) {
        for (const kind of Object.keys(KINDS) as Kind[]) {
          const spec = KINDS[kind];
          const entries = textsOf(kind, size).map((text, i) => spec.entry(text, i));
          const batches = Array.from({ length: Math.ceil(size / opts.batch) }, (_, i) => entries.slice(i * opts.batch, (i + 1) * opts.batch));
          let started = performance.now();
          for (const batch of batches) await floor.embedDocuments(batch.map((entry) => spec.embedded(entry as never)));
          const floorMs = performance.now() - started;
          started = performance.now();
          for (const batch of batches) {
            const response = await app.handle(
              new Request(`http://localhost${spec.path}`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ [spec.list]: batch }),
              }),
            );
            if (response.status !== 200) throw new Error(`${spec.path} answered ${response.status}: ${await response.text()}`);
          }
          const writeMs = performance.now() - started;
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
    `- ${opts.batch} learnings a call, one call at a time; floor: a second embedding pool embedding the texts the service embeds (a playbook's trigger and content) in the same batches\n`,
  );
  console.log(markdownTable(["mode", "kind", "learnings", "time", "written/s", "floor/s", "ratio to floor"], rows));
}

await main();
