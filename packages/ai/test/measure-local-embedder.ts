// Measures the local embedder by hand (not part of `bun test`):
//   bun packages/ai/test/measure-local-embedder.ts [model dir]   (or: node --import tsx ...; default: the default model)
// Prints embedDocuments throughput on 1,000 ten-word sentences and uncached embedQuery latency.
import { availableParallelism } from "node:os";
import { createEmbedder } from "../src/index.ts";
import { MODEL_DIR } from "./model-dir.ts";

const words = (
  "the a quick small old new river city team report market price dog cat child teacher " +
  "walks reads builds finds sells loves watches near under after before quietly again today"
).split(" ");
/** Deterministic pseudo-sentences, so runs compare; distinct, so nothing is served from a cache. */
function sentence(seed: number): string {
  return Array.from({ length: 10 }, (_, i) => words[(seed * 7919 + i * 104_729 + seed * i * 31) % words.length])
    .join(" ")
    .concat(` ${seed}.`);
}

const poolSize = 2;
const embedder = await createEmbedder({ kind: "local", modelDir: process.argv[2] ?? MODEL_DIR, poolSize });
const { bun } = process.versions as { bun?: string };
const runtime = bun === undefined ? `node ${process.versions.node}` : `bun ${bun}`;
console.log(`${embedder.modelId}; ${runtime}, pool of ${poolSize}, ${availableParallelism()} cores`);

for (let run = 1; run <= 3; run++) {
  const texts = Array.from({ length: 1_000 }, (_, i) => sentence(run * 10_000 + i));
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await embedder.embedDocuments(texts);
  const seconds = (performance.now() - started) / 1_000;
  // CPU time of all threads: shows what the work costs even when other processes share the cores.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    `embedDocuments run ${run}: 1000 texts in ${seconds.toFixed(2)} s = ${(1_000 / seconds).toFixed(0)} texts/s ` +
      `(${cpuSeconds.toFixed(2)} CPU-s, ${(1_000 / cpuSeconds).toFixed(0)} texts per CPU-second)`,
  );
}

const latencies: number[] = [];
for (let i = 0; i < 200; i++) {
  const started = performance.now();
  await embedder.embedQuery(sentence(900_000 + i));
  latencies.push(performance.now() - started);
}
latencies.sort((a, b) => a - b);
const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2);
console.log(`embedQuery uncached, 200 sequential: p50 ${percentile(50)} ms, p90 ${percentile(90)} ms, p99 ${percentile(99)} ms`);
await embedder.close();
