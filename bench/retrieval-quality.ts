/**
 * Retrieval quality of POST /api/search on the labelled set of bench/lib/labelled-retrieval-set.ts:
 * recall@5 (the target learning among the first five of its kind) and MRR@10, per search mode and
 * kind, with the model's default similarity floor and without one (threshold 0). The real service
 * (settings, composition root, the local model) answers through app.handle, over PGlite (embedded)
 * and PostgreSQL (full). Profiles and user playbooks are searched per user, agent playbooks
 * project-wide, one kind per request, so each kind's ranking is measured on its own.
 *
 *   bun bench/retrieval-quality.ts [--modes embedded,full] [--postgres-url <server>] [--model-dir <dir>]
 *
 * --model-dir: the local model to run (default: the service's default model). The report names the
 * model and its floor, and the 1st percentile of the similarities of the set's true (query,
 * learning) pairs: rounded down to 0.05, that is how a model's default floor is chosen
 * (scripts/install-model.sh).
 *
 * Every mode starts from an empty database, dropped at the end. Progress goes to stderr, the report to stdout.
 */

import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createEmbedder, type Embedder } from "@als/ai";
import { embeddingTextOf, loadSettings } from "@als/core";
import { buildApp } from "../apps/server/src/app.ts";
import { composeService } from "../apps/server/src/compose.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { AGENT_PLAYBOOKS, LABELLED_SET_VERSION, PROFILES, USER_PLAYBOOKS } from "./lib/labelled-retrieval-set.ts";
import { hostFacts } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { postgresUrlOption, storageModesOption } from "./lib/options.ts";
import type { StorageMode } from "./lib/seed.ts";
import { markdownTable, percentile } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const UNTHROTTLED = { perSecond: 1_000_000, burst: 1_000_000 };

type Kind = "profiles" | "user_playbooks" | "agent_playbooks";
const KINDS: readonly Kind[] = ["profiles", "user_playbooks", "agent_playbooks"];

/** A query and the learning it must find: by its text (every learning of the set is unique). */
interface LabelledQuery {
  kind: Kind;
  userId: string | undefined;
  query: string;
  target: string;
  /** The text the target's vector is computed from (a playbook's trigger and content). */
  targetEmbeddingText: string;
}

interface Variant {
  name: string;
  searchMode: "vector" | "fts" | "hybrid";
  /** undefined: the service's default floor. */
  threshold: number | undefined;
}

const VARIANTS: readonly Variant[] = [
  { name: "hybrid (default floor)", searchMode: "hybrid", threshold: undefined },
  { name: "vector (default floor)", searchMode: "vector", threshold: undefined },
  { name: "fts", searchMode: "fts", threshold: undefined },
  { name: "hybrid, floor 0", searchMode: "hybrid", threshold: 0 },
  { name: "vector, floor 0", searchMode: "vector", threshold: 0 },
];

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: { modes: { type: "string", default: "embedded,full" }, "postgres-url": { type: "string" }, "model-dir": { type: "string" } },
    strict: true,
  });
  const modes = storageModesOption(values.modes);
  const modelDir = values["model-dir"] === undefined ? defaultModelDir(ROOT) : resolve(values["model-dir"]);
  return { modes, postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT), modelDir };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function labelledQueries(): LabelledQuery[] {
  const queries: LabelledQuery[] = [];
  for (const [userId, profiles] of Object.entries(PROFILES)) {
    for (const [text, ...asked] of profiles) {
      for (const query of asked) queries.push({ kind: "profiles", userId, query, target: text, targetEmbeddingText: text });
    }
  }
  for (const [userId, playbooks] of Object.entries(USER_PLAYBOOKS)) {
    for (const [trigger, content, ...asked] of playbooks) {
      const targetEmbeddingText = embeddingTextOf({ trigger, content });
      for (const query of asked) queries.push({ kind: "user_playbooks", userId, query, target: content, targetEmbeddingText });
    }
  }
  for (const [trigger, content, ...asked] of AGENT_PLAYBOOKS) {
    const targetEmbeddingText = embeddingTextOf({ trigger, content });
    for (const query of asked) queries.push({ kind: "agent_playbooks", userId: undefined, query, target: content, targetEmbeddingText });
  }
  return queries;
}

interface Score {
  recallAt5: number;
  mrr: number;
  queries: number;
}

async function runMode(mode: StorageMode, postgresUrl: string | undefined, modelDir: string): Promise<Map<string, Score>> {
  const storage = await freshServiceStorage("retrieval_quality", mode, postgresUrl);
  const settings = loadSettings({ ...storage.env, EMBEDDING_MODEL_DIR: modelDir, LOG_LEVEL: "error" });
  const log = createLogger("error");
  const service = await composeService(settings, log);
  const rateLimits = { search: UNTHROTTLED, publish: UNTHROTTLED, write: UNTHROTTLED, read: UNTHROTTLED, sign_in: UNTHROTTLED };
  const app = buildApp({ deps: service.deps, log, mode: service.mode, authMode: "local", rateLimits });
  const post = async (path: string, body: unknown) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    );
    const answer = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  try {
    progress(`${mode}: seeding the labelled set ${LABELLED_SET_VERSION}...`);
    for (const [userId, profiles] of Object.entries(PROFILES)) {
      await post("/api/add_user_profile", { user_profiles: profiles.map(([content]) => ({ user_id: userId, content })) });
    }
    for (const [userId, playbooks] of Object.entries(USER_PLAYBOOKS)) {
      await post("/api/add_user_playbook", { user_playbooks: playbooks.map(([trigger, content]) => ({ user_id: userId, trigger, content })) });
    }
    await post("/api/add_agent_playbook", {
      agent_playbooks: AGENT_PLAYBOOKS.map(([trigger, content]) => ({ trigger, content, playbook_status: "APPROVED" })),
    });
    // PGlite runs no autovacuum: the full-text arm's statistics come from ANALYZE.
    await service.deps.db.exec("ANALYZE profiles, user_playbooks, agent_playbooks");

    const scores = new Map<string, Score>();
    const queries = labelledQueries();
    for (const variant of VARIANTS) {
      progress(`${mode}: ${variant.name}, ${queries.length} queries...`);
      const sums = new Map<Kind, { hits: number; reciprocal: number; n: number }>(KINDS.map((kind) => [kind, { hits: 0, reciprocal: 0, n: 0 }]));
      for (const labelled of queries) {
        const answer = await post("/api/search", {
          query: labelled.query,
          entity_types: [labelled.kind],
          top_k: 10,
          search_mode: variant.searchMode,
          ...(labelled.userId !== undefined && { user_id: labelled.userId }),
          ...(variant.threshold !== undefined && { threshold: variant.threshold }),
        });
        const texts: string[] = (answer[labelled.kind] as { content: string }[]).map((row) => row.content);
        const rank = texts.indexOf(labelled.target) + 1;
        const sum = sums.get(labelled.kind)!;
        sum.n++;
        if (rank >= 1 && rank <= 5) sum.hits++;
        if (rank >= 1) sum.reciprocal += 1 / rank;
      }
      let all = { hits: 0, reciprocal: 0, n: 0 };
      for (const [kind, sum] of sums) {
        scores.set(`${variant.name}|${kind}`, { recallAt5: sum.hits / sum.n, mrr: sum.reciprocal / sum.n, queries: sum.n });
        all = { hits: all.hits + sum.hits, reciprocal: all.reciprocal + sum.reciprocal, n: all.n + sum.n };
      }
      scores.set(`${variant.name}|all`, { recallAt5: all.hits / all.n, mrr: all.reciprocal / all.n, queries: all.n });
    }
    return scores;
  } finally {
    await service.close();
    await storage.drop();
  }
}

/**
 * Cosine similarity of each labelled query with its target learning, as the vector arm computes
 * it: the query through embedQuery, the learning's text through embedDocuments (each with the
 * model's prefix). Vectors are unit length, so the dot product is the cosine.
 */
async function truePairSimilarities(embedder: Embedder, queries: LabelledQuery[]): Promise<number[]> {
  const targets = await embedder.embedDocuments(queries.map((q) => q.targetEmbeddingText));
  const similarities: number[] = [];
  for (const [index, labelled] of queries.entries()) {
    const query = await embedder.embedQuery(labelled.query);
    similarities.push(query.reduce((sum, value, d) => sum + value * targets[index]![d]!, 0));
  }
  return similarities;
}

async function main() {
  const opts = options();
  const results = new Map<StorageMode, Map<string, Score>>();
  for (const mode of opts.modes) results.set(mode, await runMode(mode, opts.postgresUrl, opts.modelDir));
  const embedder = await createEmbedder({ kind: "local", modelDir: opts.modelDir });
  const similarities = await truePairSimilarities(embedder, labelledQueries());
  await embedder.close();
  const queries = labelledQueries();
  console.log(`## Retrieval quality of /api/search on the labelled set ${LABELLED_SET_VERSION} (${queries.length} queries)\n`);
  const rows: string[][] = [];
  for (const [mode, scores] of results) {
    for (const variant of VARIANTS) {
      const cells = [...KINDS, "all" as const].flatMap((kind) => {
        const score = scores.get(`${variant.name}|${kind}`)!;
        return [score.recallAt5.toFixed(2), score.mrr.toFixed(2)];
      });
      rows.push([mode, variant.name, ...cells]);
    }
  }
  const header = ["mode", "variant", ...[...KINDS, "all"].flatMap((kind) => [`${kind} R@5`, `${kind} MRR`])];
  console.log(markdownTable(header, rows));
  console.log("");
  const counts = KINDS.map((kind) => `${kind} ${queries.filter((q) => q.kind === kind).length}`).join(", ");
  console.log(`- queries: ${counts}; MRR over the first 10; one kind per request (entity_types), top_k 10`);
  const firstPercentile = percentile(similarities, 1);
  console.log(
    `- model ${embedder.modelId} (${opts.modelDir}); its default floor ${embedder.defaultThreshold}; ` +
      `similarity of the ${similarities.length} true (query, learning) pairs: 1st percentile ${firstPercentile.toFixed(3)} ` +
      `(floor by the rule: ${(Math.floor(firstPercentile * 20) / 20).toFixed(2)}), min ${Math.min(...similarities).toFixed(3)}, median ${percentile(similarities, 50).toFixed(3)}`,
  );
  for (const fact of hostFacts()) console.log(`- ${fact}`);
}

await main();
