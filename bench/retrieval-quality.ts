/**
 * Retrieval quality of POST /api/search on the labelled set of bench/lib/labelled-retrieval-set.ts:
 * recall@5 (the target learning among the first five of its kind) and MRR@10, per search mode and
 * kind, with the default similarity floor and without one (threshold 0). The real service
 * (settings, composition root, the local model) answers through app.handle, over PGlite (embedded)
 * and PostgreSQL (full). Profiles and user playbooks are searched per user, agent playbooks
 * project-wide, one kind per request, so each kind's ranking is measured on its own.
 *
 *   bun bench/retrieval-quality.ts [--modes embedded,full] [--postgres-url <server>] [--model-dir <dir>]
 *                                  [--expansion-llm <OpenAI-compatible base URL> --expansion-model <model>]
 *
 * --model-dir: the local model to run (default: the service's default model). The report names the
 * model and its floor, and the 1st percentile of the similarities of the set's true (query,
 * learning) pairs: rounded down to 0.05, that is how a model's default floor is chosen
 * (scripts/install-model.sh).
 *
 * With --expansion-llm (its key in LLM_API_KEY; LLM_CONTEXT_WINDOW_TOKENS for a model the service
 * does not know), the variants run again after document expansion
 * (enable_document_expansion) has given every learning its terms from that model, named "+ expansion".
 *
 * Every mode starts from an empty database, dropped at the end. Progress goes to stderr, the report to stdout.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createEmbedder, type Embedder } from "@als/ai";
import { embeddingTextOf, expandDocumentsStep, loadSettings } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { buildApp } from "../apps/server/src/app.ts";
import { composeService } from "../apps/server/src/compose.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import {
  AGENT_PLAYBOOKS,
  KEYWORD_AGENT_PLAYBOOKS,
  KEYWORD_PROFILES,
  KEYWORD_USER_PLAYBOOKS,
  LABELLED_SET_VERSION,
  PROFILES,
  USER_PLAYBOOKS,
} from "./lib/labelled-retrieval-set.ts";
import { hostFacts } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { postgresUrlOption, storageModesOption } from "./lib/options.ts";
import type { StorageMode } from "./lib/seed.ts";
import { markdownTable, percentile } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const UNTHROTTLED = { perSecond: 1_000_000, burst: 1_000_000 };

type Kind = "profiles" | "user_playbooks" | "agent_playbooks";
const KINDS: readonly Kind[] = ["profiles", "user_playbooks", "agent_playbooks"];

type Style = "paraphrase" | "keyword";
const STYLES: readonly Style[] = ["paraphrase", "keyword"];
/** The table's column groups: each kind (both styles), each style (all kinds), everything. */
const GROUPS = [...KINDS, ...STYLES, "all"] as const;

/** A query and the learning it must find: by its text (every learning of the set is unique). */
interface LabelledQuery {
  kind: Kind;
  style: Style;
  userId: string | undefined;
  query: string;
  target: string;
  /** The target's text as the service embeds it (a playbook's trigger and content). */
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
    options: {
      modes: { type: "string", default: "embedded,full" },
      "postgres-url": { type: "string" },
      "model-dir": { type: "string" },
      "expansion-llm": { type: "string" },
      "expansion-model": { type: "string", default: "gpt-4o-mini" },
    },
    strict: true,
  });
  const modes = storageModesOption(values.modes);
  const expansion = values["expansion-llm"] ? { baseUrl: values["expansion-llm"], model: values["expansion-model"] } : undefined;
  const modelDir = values["model-dir"] === undefined ? defaultModelDir(ROOT) : resolve(values["model-dir"]);
  return { modes, postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT), modelDir, expansion };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** The learnings of both slices, seeded together so that each is the other's distractor. */
const SEEDED = {
  profiles: [...Object.entries(PROFILES), ...Object.entries(KEYWORD_PROFILES)],
  userPlaybooks: [...Object.entries(USER_PLAYBOOKS), ...Object.entries(KEYWORD_USER_PLAYBOOKS)],
  agentPlaybooks: [...AGENT_PLAYBOOKS, ...KEYWORD_AGENT_PLAYBOOKS],
};

function labelledQueries(): LabelledQuery[] {
  const queries: LabelledQuery[] = [];
  const slices = [
    { style: "paraphrase" as const, profiles: PROFILES, userPlaybooks: USER_PLAYBOOKS, agentPlaybooks: AGENT_PLAYBOOKS },
    { style: "keyword" as const, profiles: KEYWORD_PROFILES, userPlaybooks: KEYWORD_USER_PLAYBOOKS, agentPlaybooks: KEYWORD_AGENT_PLAYBOOKS },
  ];
  for (const { style, ...slice } of slices) {
    for (const [userId, profiles] of Object.entries(slice.profiles)) {
      for (const [text, ...asked] of profiles) {
        for (const query of asked) queries.push({ kind: "profiles", style, userId, query, target: text, targetEmbeddingText: text });
      }
    }
    for (const [userId, playbooks] of Object.entries(slice.userPlaybooks)) {
      for (const [trigger, content, ...asked] of playbooks) {
        const targetEmbeddingText = embeddingTextOf({ trigger, content });
        for (const query of asked) queries.push({ kind: "user_playbooks", style, userId, query, target: content, targetEmbeddingText });
      }
    }
    for (const [trigger, content, ...asked] of slice.agentPlaybooks)
      for (const query of asked) {
        queries.push({ kind: "agent_playbooks", style, userId: undefined, query, target: content, targetEmbeddingText: embeddingTextOf({ trigger, content }) });
      }
  }
  return queries;
}

interface Score {
  recallAt5: number;
  mrr: number;
  queries: number;
}

/** An OpenAI-compatible provider that writes the expansion terms. */
interface ExpansionModel {
  baseUrl: string;
  model: string;
}

async function runMode(
  mode: StorageMode,
  postgresUrl: string | undefined,
  modelDir: string,
  expansion: ExpansionModel | undefined,
): Promise<Map<string, Score>> {
  const storage = await freshServiceStorage("retrieval_quality", mode, postgresUrl);
  // The key and, for a model the service does not know, its context window come from the environment.
  const llmEnv = expansion && {
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: expansion.baseUrl,
    LLM_MODEL: expansion.model,
    ...(process.env.LLM_API_KEY && { LLM_API_KEY: process.env.LLM_API_KEY }),
    ...(process.env.LLM_CONTEXT_WINDOW_TOKENS && { LLM_CONTEXT_WINDOW_TOKENS: process.env.LLM_CONTEXT_WINDOW_TOKENS }),
  };
  const settings = loadSettings({ ...storage.env, ...llmEnv, EMBEDDING_MODEL_DIR: modelDir, LOG_LEVEL: "error" });
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
    for (const [userId, profiles] of SEEDED.profiles) {
      await post("/api/add_user_profile", { user_profiles: profiles.map(([content]) => ({ user_id: userId, content })) });
    }
    for (const [userId, playbooks] of SEEDED.userPlaybooks) {
      await post("/api/add_user_playbook", { user_playbooks: playbooks.map(([trigger, content]) => ({ user_id: userId, trigger, content })) });
    }
    await post("/api/add_agent_playbook", {
      agent_playbooks: SEEDED.agentPlaybooks.map(([trigger, content]) => ({ trigger, content, playbook_status: "APPROVED" })),
    });
    // PGlite runs no autovacuum: the full-text arm's statistics come from ANALYZE.
    await service.deps.db.exec("ANALYZE profiles, user_playbooks, agent_playbooks");

    const scores = new Map<string, Score>();
    await measure(mode, post, scores, "");
    if (expansion) {
      progress(`${mode}: expanding every learning with ${expansion.model}...`);
      await post("/api/update_config", { enable_document_expansion: true });
      const deps = { ...service.deps, llm: service.deps.llm! };
      while ((await expandDocumentsStep(deps, LOCAL_SCOPE)).remaining > 0);
      await service.deps.db.exec("ANALYZE profiles, user_playbooks, agent_playbooks");
      await measure(mode, post, scores, EXPANDED);
    }
    return scores;
  } finally {
    await service.close();
    await storage.drop();
  }
}

const EXPANDED = " + expansion";

/** Runs every variant over the labelled queries; scores go under `<variant><suffix>|<group>`. */
async function measure(mode: StorageMode, post: (path: string, body: unknown) => Promise<any>, scores: Map<string, Score>, suffix: string): Promise<void> {
  const queries = labelledQueries();
  for (const variant of VARIANTS) {
    progress(`${mode}: ${variant.name}${suffix}, ${queries.length} queries...`);
    const sums = new Map<string, { hits: number; reciprocal: number; n: number }>();
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
      // Each query counts in its kind, its style and the whole.
      for (const group of [labelled.kind, labelled.style, "all"]) {
        const sum = sums.get(group) ?? { hits: 0, reciprocal: 0, n: 0 };
        sum.n++;
        if (rank >= 1 && rank <= 5) sum.hits++;
        if (rank >= 1) sum.reciprocal += 1 / rank;
        sums.set(group, sum);
      }
    }
    for (const [group, sum] of sums)
      scores.set(`${variant.name}${suffix}|${group}`, { recallAt5: sum.hits / sum.n, mrr: sum.reciprocal / sum.n, queries: sum.n });
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
  for (const mode of opts.modes) results.set(mode, await runMode(mode, opts.postgresUrl, opts.modelDir, opts.expansion));
  const embedder = await createEmbedder({ kind: "local", modelDir: opts.modelDir });
  const similarities = await truePairSimilarities(embedder, labelledQueries());
  await embedder.close();
  const queries = labelledQueries();
  console.log(`## Retrieval quality of /api/search on the labelled set ${LABELLED_SET_VERSION} (${queries.length} queries)\n`);
  const rows: string[][] = [];
  for (const [mode, scores] of results) {
    for (const name of [...VARIANTS.map((v) => v.name), ...(opts.expansion ? VARIANTS.map((v) => `${v.name}${EXPANDED}`) : [])]) {
      const cells = GROUPS.flatMap((group) => {
        const score = scores.get(`${name}|${group}`)!;
        return [score.recallAt5.toFixed(2), score.mrr.toFixed(2)];
      });
      rows.push([mode, name, ...cells]);
    }
  }
  const header = ["mode", "variant", ...GROUPS.flatMap((group) => [`${group} R@5`, `${group} MRR`])];
  console.log(markdownTable(header, rows));
  console.log("");
  const counts = [
    ...KINDS.map((kind) => `${kind} ${queries.filter((q) => q.kind === kind).length}`),
    ...STYLES.map((style) => `${style} ${queries.filter((q) => q.style === style).length}`),
  ].join(", ");
  console.log(`- queries: ${counts}; MRR over the first 10; one kind per request (entity_types), top_k 10`);
  const firstPercentile = percentile(similarities, 1);
  console.log(
    `- model ${embedder.modelId} (${opts.modelDir}); its default floor ${embedder.defaultThreshold}; ` +
      `similarity of the ${similarities.length} true (query, learning) pairs: 1st percentile ${firstPercentile.toFixed(3)} ` +
      `(floor by the rule: ${(Math.floor(firstPercentile * 20) / 20).toFixed(2)}), min ${Math.min(...similarities).toFixed(3)}, median ${percentile(similarities, 50).toFixed(3)}`,
  );
  if (opts.expansion) console.log(`- expansion terms written by ${opts.expansion.model} at ${opts.expansion.baseUrl}`);
  for (const fact of hostFacts()) console.log(`- ${fact}`);
}

await main();
