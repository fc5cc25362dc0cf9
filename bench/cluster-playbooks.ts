/**
 * Clustering user playbooks into agent-playbook candidates: ComputePool.clusterEmbeddings (LSH
 * candidates + average linkage on the pool's 2 threads) at 1k, 10k and 20k playbooks, and its
 * agreement with exact average linkage (averageLinkageExact) on a random sample.
 *
 *   bun bench/cluster-playbooks.ts [--sizes 1000,10000,20000] [--sample 2000] [--threshold 0.8] [--min-cluster-size 2]
 *
 * Playbook texts are generated (themes = trigger × action, drawn with Zipf popularity, each phrased
 * one of two ways with a varying rationale and template) and embedded with the real local model
 * once; the vectors are kept in .cache/bench/ (the shared vector cache names its files
 * profile-vectors-<generator>-<model>). Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { createEmbedder } from "@als/ai";
import { adjustedRandIndex, averageLinkageExact, createComputePool } from "@als/compute";
import { prng } from "./lib/corpus.ts";
import { hostFacts, loadAverage } from "./lib/machine.ts";
import { markdownTable, seconds } from "./lib/stats.ts";
import { cachedEmbeddings } from "./lib/vector-cache.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const CACHE_DIR = `${ROOT}/.cache/bench`;
const MODEL_DIR = `${ROOT}/.cache/models/all-MiniLM-L6-v2-int8`;
const THREADS = 2;

/** Bump when the playbook generator changes: the cached vectors are keyed by it. */
const GENERATOR_VERSION = "playbooks-v1";

/** Situations an agent meets; two phrasings each, as different users would write them. */
const TRIGGERS: readonly (readonly [string, string])[] = [
  ["the user asks for a refund after the 30-day window", "a customer wants their money back for an order older than a month"],
  ["a payment fails at checkout", "the user says their card was declined while paying"],
  ["the user wants to cancel their subscription", "a customer asks how to stop their monthly plan"],
  ["the user uploads a CSV with malformed dates", "an imported spreadsheet has dates in an unexpected format"],
  ["the user cannot log in after resetting the password", "someone is locked out even though they just changed their password"],
  ["the user asks for a summary of a long report", "a user wants the key points of a lengthy document"],
  ["the user reports that the app crashes on startup", "someone says the mobile app closes as soon as it opens"],
  ["the user asks about shipping times to Europe", "a customer wants to know how long delivery to the EU takes"],
  ["the user writes in Spanish", "a message arrives in Spanish instead of English"],
  ["the user asks for legal advice about a contract", "someone wants to know whether a contract clause is enforceable"],
  ["the user is angry about a repeated billing error", "a frustrated customer was charged twice again"],
  ["the user asks to delete their account and data", "a customer requests erasure of all their personal data"],
  ["the user asks which plan fits a team of ten", "a small team wants help choosing a pricing tier"],
  ["the user reports slow page loads in the dashboard", "someone says the analytics dashboard takes ages to load"],
  ["the user asks for code that calls the REST API", "a developer wants an example request against the public API"],
  ["the user wants to change the delivery address after ordering", "a customer needs an order shipped somewhere else than first entered"],
  ["the user asks about data retention", "someone wants to know how long their records are kept"],
  ["the user mentions a medical symptom", "a user describes chest pain or another health complaint"],
  ["the user asks for a discount", "a customer wants a coupon or a lower price"],
  ["the user asks to speak to a human", "someone insists on talking to a real person"],
  ["the user shares a screenshot of an error", "a user pastes an image of an error dialog"],
  ["the user asks how to export their data", "someone wants to download everything they stored as a file"],
  ["the user reports a security vulnerability", "a researcher says they found a security hole in the product"],
  ["the user asks the same question a third time", "a user repeats a question they already asked twice"],
  ["the user asks for product recommendations", "a shopper wants suggestions for what to buy"],
  ["the user wants to integrate with Slack", "someone asks how to connect the product to their Slack workspace"],
  ["the user reports missing items in a delivery", "a package arrived without everything that was ordered"],
  ["the user asks about an invoice for tax purposes", "a customer needs a VAT invoice for their accountant"],
  ["the user is a first-time visitor exploring features", "a new user is trying the product for the first time"],
  ["the user asks to upgrade in the middle of a billing cycle", "someone wants a bigger plan before the month ends"],
];

/** What the agent should do; two phrasings each. */
const ACTIONS: readonly (readonly [string, string])[] = [
  ["explain the policy and offer store credit instead", "state the rule politely and propose a credit on the account"],
  ["ask for the order number before anything else", "first request the order ID so the case can be looked up"],
  ["escalate to a human agent with a summary of the conversation", "hand the case to a person and include a short recap"],
  ["give step-by-step instructions with numbered steps", "answer with a numbered list of steps to follow"],
  ["reply in the user's language", "answer in the same language the user wrote in"],
  ["check the status page for incidents before troubleshooting", "look for an ongoing outage before debugging their setup"],
  ["suggest clearing the cache and reinstalling the app", "recommend wiping app data and installing it again"],
  ["link the relevant help center article", "point them to the matching help article"],
  ["apologize once and state concrete next steps", "say sorry briefly and explain exactly what happens next"],
  ["avoid giving definitive advice and recommend a professional", "do not give a firm answer and suggest consulting an expert"],
  ["confirm the request in writing and give a timeline", "acknowledge it by email and say when it will be done"],
  ["ask clarifying questions about team size and budget", "find out how many seats they need and what they can spend"],
  ["collect browser, version and time of the problem", "gather the browser, app version and when it happened"],
  ["provide a short code sample in TypeScript", "include a minimal TypeScript example"],
  ["offer a one-time courtesy discount of ten percent", "give a single ten percent goodwill discount"],
  ["verify identity with the email on file", "confirm who they are using the account email"],
  ["keep the answer under three sentences", "respond briefly, in at most three sentences"],
  ["prorate the charge and explain the calculation", "bill the difference pro rata and show how it was computed"],
  ["open a ticket with high priority", "file an urgent ticket for the team"],
  ["recommend the annual plan for savings", "suggest paying yearly to save money"],
];

/** Why; users explain their playbooks differently even when they agree on trigger and action. */
const RATIONALES: readonly string[] = [
  "because it reduces repeat contacts",
  "since users said this felt more respectful",
  "as this resolved most similar cases quickly",
  "because the policy team asked for it",
  "to avoid legal risk",
  "because customers were confused otherwise",
  "since it saves everyone time",
  "as earlier answers without it led to complaints",
  "because it keeps the conversation focused",
  "since it builds trust",
];

const TEMPLATES: readonly string[] = [
  "When {trigger}, {action}, {why}.",
  "If {trigger}: {action}. Rationale: {why}.",
  "Trigger: {trigger}. Do: {action}. Why: {why}.",
  "{Action} whenever {trigger}; {why}.",
  "In cases where {trigger}, the agent should {action} {why}.",
];

/** Themes (trigger × action) are drawn with Zipf-like popularity: a few playbooks many users derive, a long tail few do. */
const ZIPF_EXPONENT = 1.05;

/**
 * The first `count` user playbooks: each picks a theme by popularity, then phrases its trigger and
 * action one of two ways, adds a rationale and a template. Deterministic and prefix-stable (text i
 * depends only on i), so cached vectors serve every size.
 */
function playbookTexts(count: number): string[] {
  const random = prng(0x9b_0001);
  const themes = TRIGGERS.length * ACTIONS.length;
  // Popularity order is a fixed shuffle of the themes, so popular themes are spread over triggers.
  const order = Array.from({ length: themes }, (_, i) => i);
  for (let i = themes - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= themes; rank++) cumulative.push((total += rank ** -ZIPF_EXPONENT));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, () => {
    const draw = random() * total;
    const theme = order[cumulative.findIndex((sum) => sum >= draw)]!;
    const trigger = pick(TRIGGERS[Math.floor(theme / ACTIONS.length)]!);
    const action = pick(ACTIONS[theme % ACTIONS.length]!);
    return pick(TEMPLATES)
      .replace("{trigger}", trigger)
      .replace("{action}", action)
      .replace("{Action}", action[0]!.toUpperCase() + action.slice(1))
      .replace("{why}", pick(RATIONALES));
  });
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      sizes: { type: "string", default: "1000,10000,20000" },
      sample: { type: "string", default: "2000" },
      threshold: { type: "string", default: "0.8" },
      "min-cluster-size": { type: "string", default: "2" },
    },
    strict: true,
  });
  const number = (name: string, raw: string, valid: (value: number) => boolean) => {
    const value = Number(raw.replaceAll("_", ""));
    if (!valid(value)) throw new Error(`--${name}: ${raw} is not allowed`);
    return value;
  };
  const positiveInteger = (value: number) => Number.isInteger(value) && value >= 1;
  return {
    sizes: values.sizes.split(",").map((size) => number("sizes", size.trim(), positiveInteger)),
    sample: number("sample", values.sample, positiveInteger),
    threshold: number("threshold", values.threshold, (value) => value >= 0 && value <= 1),
    minClusterSize: number("min-cluster-size", values["min-cluster-size"], positiveInteger),
  };
}

const clusterCount = (labels: Int32Array) => new Set(labels.filter((label) => label >= 0)).size;

/** `count` distinct rows of `rows`, drawn by a seeded shuffle, in ascending order. */
function sampleRows(rows: number, count: number, seed: number): number[] {
  const random = prng(seed);
  const order = Array.from({ length: rows }, (_, row) => row);
  for (let i = rows - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order.slice(0, Math.min(count, rows)).sort((a, b) => a - b);
}

async function main() {
  const opts = options();
  const startedAt = performance.now();
  const loadAtStart = loadAverage();
  const embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  const corpus = await cachedEmbeddings(embedder, Math.max(...opts.sizes), playbookTexts, { dir: CACHE_DIR, generatorVersion: GENERATOR_VERSION, progress });
  const dims = embedder.dimensions;
  await embedder.close();

  const pool = createComputePool({ threads: THREADS });
  const { threshold, minClusterSize } = opts;
  // Starts the threads (each loads its default task) so the first row does not pay for it.
  await pool.clusterEmbeddings({ vectors: corpus.vectors.slice(0, 100 * dims), dims, threshold, minClusterSize });

  const rows: string[][] = [];
  for (const size of opts.sizes) {
    const vectors = corpus.vectors.slice(0, size * dims);
    const started = performance.now();
    const labels = await pool.clusterEmbeddings({ vectors, dims, threshold, minClusterSize });
    const millis = performance.now() - started;
    const clustered = labels.filter((label) => label >= 0).length;

    const sample = sampleRows(size, opts.sample, size);
    const sampleVectors = new Float32Array(sample.length * dims);
    sample.forEach((row, i) => sampleVectors.set(corpus.vectors.subarray(row * dims, (row + 1) * dims), i * dims));
    const sampleLabels = await pool.clusterEmbeddings({ vectors: sampleVectors, dims, threshold, minClusterSize });
    const exactStarted = performance.now();
    const exactLabels = averageLinkageExact(sampleVectors, dims, threshold, minClusterSize);
    const exactMillis = performance.now() - exactStarted;
    const agreement = adjustedRandIndex(sampleLabels, exactLabels);
    progress(`${size} playbooks: ${millis.toFixed(0)} ms, ${clusterCount(labels)} clusters; sample ARI ${agreement.toFixed(4)}`);
    rows.push([
      size.toLocaleString("en-US"),
      millis.toFixed(0),
      clusterCount(labels).toString(),
      `${((100 * clustered) / size).toFixed(1)}%`,
      sample.length.toLocaleString("en-US"),
      `${clusterCount(sampleLabels)} / ${clusterCount(exactLabels)}`,
      agreement.toFixed(4),
      exactMillis.toFixed(0),
    ]);
  }
  await pool.close();

  const out = [
    `## Clustering user playbooks (threshold ${threshold}, min cluster size ${minClusterSize})`,
    "",
    ...hostFacts().map((fact) => `- ${fact}`),
    `- load average at start: ${loadAtStart}`,
    `- vectors: real all-MiniLM-L6-v2 embeddings of ${corpus.texts.length.toLocaleString("en-US")} generated playbook texts (generator ${GENERATOR_VERSION}); ` +
      (corpus.embedded === 0 ? `read from ${corpus.path.replace(`${ROOT}/`, "")}` : `${corpus.embedded} embedded this run in ${seconds(corpus.embedMillis)}`),
    `- pool: ${THREADS} threads; time = one clusterEmbeddings call after a warm-up, vectors copied to shared memory included`,
    "- ARI: a random sample clustered by the pool and by exact average linkage; -1 rows count as singletons",
    "",
    markdownTable(["playbooks", "pool ms", "clusters", "in a cluster", "sample", "clusters pool / exact (sample)", "ARI (sample)", "exact ms (sample)"], rows),
    "",
    `Total run time ${seconds(performance.now() - startedAt)}.`,
  ];
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
