/**
 * Where each local model's similarity thresholds belong: the clustering similarity of aggregation
 * and the deduplication search threshold are cosine values, and cosine values mean different things
 * for different models (MiniLM puts unrelated texts near 0.1, e5 near 0.7). Labelled by the playbook
 * generator's themes (bench/lib/playbooks.ts): two playbooks of one theme give the same guidance in
 * other words (a duplicate, the same cluster), two of different themes do not.
 *
 *   bun bench/similarity-calibration.ts [--playbooks 2000] [--models all-MiniLM-L6-v2-int8,e5-small-v2-int8]
 *
 * Per model: the share of same-theme pairs (recall) and of other pairs (false matches) at or above
 * each threshold, and the adjusted Rand index of exact average-linkage clustering at that threshold
 * against the themes. The manifests' values (scripts/install-model.sh) are read off these tables.
 */
import { parseArgs } from "node:util";
import { createEmbedder } from "@als/ai";
import { adjustedRandIndex, averageLinkageExact } from "@als/compute";
import { hostFacts, loadAverage } from "./lib/machine.ts";
import { integerOption } from "./lib/options.ts";
import { generatePlaybooks } from "./lib/playbooks.ts";
import { markdownTable, seconds } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const THRESHOLDS = Array.from({ length: 71 }, (_, i) => Math.round((0.3 + i * 0.01) * 100) / 100);

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      playbooks: { type: "string", default: "2000" },
      models: { type: "string", default: "all-MiniLM-L6-v2-int8,e5-small-v2-int8" },
    },
    strict: true,
  });
  return { playbooks: integerOption("playbooks", values.playbooks, 10), models: values.models.split(",").map((model) => model.trim()) };
}

/** Similarities of every pair, split by whether the two share a theme (sorted ascending). */
function pairSimilarities(vectors: Float32Array, dims: number, themes: readonly number[]) {
  const same: number[] = [];
  const other: number[] = [];
  for (let a = 0; a < themes.length; a++) {
    for (let b = a + 1; b < themes.length; b++) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += vectors[a * dims + d]! * vectors[b * dims + d]!;
      (themes[a] === themes[b] ? same : other).push(dot);
    }
  }
  return { same: Float64Array.from(same).sort(), other: Float64Array.from(other).sort() };
}

/** Share of a sorted list at or above `threshold`. */
function shareAtLeast(sorted: Float64Array, threshold: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < threshold) low = middle + 1;
    else high = middle;
  }
  return (sorted.length - low) / sorted.length;
}

async function main() {
  const opts = options();
  const startedAt = performance.now();
  const loadAtStart = loadAverage();
  const playbooks = generatePlaybooks(opts.playbooks);
  const themes = playbooks.map((playbook) => playbook.theme);
  const truth = Int32Array.from(themes);
  const out = [
    `## Similarity thresholds per model, on ${opts.playbooks.toLocaleString("en-US")} generated playbooks (${new Set(themes).size} themes)`,
    "",
    ...hostFacts().map((fact) => `- ${fact}`),
    `- load average at start: ${loadAtStart}`,
    "- recall: share of same-theme pairs at or above the threshold; false: share of other pairs at or above it; ARI: exact average linkage (min cluster size 2) against the themes",
    "",
  ];
  for (const model of opts.models) {
    const embedder = await createEmbedder({ kind: "local", modelDir: `${ROOT}/.cache/models/${model}` });
    // A few thousand texts embed in seconds: no cache to share with other benches.
    const vectors = Float32Array.from((await embedder.embedDocuments(playbooks.map((playbook) => playbook.text))).flat());
    const dims = embedder.dimensions;
    await embedder.close();
    const { same, other } = pairSimilarities(vectors, dims, themes);
    progress(`${model}: ${same.length} same-theme pairs, ${other.length} other pairs`);
    const rows = THRESHOLDS.map((threshold) => {
      const ari = adjustedRandIndex(averageLinkageExact(vectors, dims, threshold, 2), truth);
      return [threshold.toFixed(2), shareAtLeast(same, threshold).toFixed(3), shareAtLeast(other, threshold).toFixed(4), ari.toFixed(3)];
    });
    const best = rows.reduce((a, b) => (Number(b[3]) > Number(a[3]) ? b : a));
    out.push(
      `### ${model}`,
      "",
      `best ARI ${best[3]} at ${best[0]}`,
      "",
      markdownTable(["threshold", "recall (same theme)", "false (other themes)", "ARI"], rows),
      "",
    );
  }
  out.push(`Total run time ${seconds(performance.now() - startedAt)}.`);
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
