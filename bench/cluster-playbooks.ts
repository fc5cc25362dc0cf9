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
import { defaultModelDir } from "./lib/model-dir.ts";
import { PLAYBOOK_GENERATOR_VERSION as GENERATOR_VERSION, playbookTexts } from "./lib/playbooks.ts";
import { markdownTable, seconds } from "./lib/stats.ts";
import { cachedEmbeddings } from "./lib/vector-cache.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const CACHE_DIR = `${ROOT}/.cache/bench`;
const MODEL_DIR = defaultModelDir(ROOT);
const THREADS = 2;

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
    for (const [i, row] of sample.entries()) sampleVectors.set(corpus.vectors.subarray(row * dims, (row + 1) * dims), i * dims);
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
