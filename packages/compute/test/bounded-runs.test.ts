import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createComputePool } from "../src/index.ts";
import { boundedRuns } from "../src/tasks/bounded-runs.mjs";

const modelDir = new URL("../../../.cache/models/e5-small-v2-int8", import.meta.url).pathname;

test("a task's sequences run at most one longest sequence's attention at a time, similar lengths together", () => {
  // Four texts at the limit: one run each.
  expect(boundedRuns([512, 512, 512, 512], 512)).toEqual([[0], [1], [2], [3]]);
  // Thirty-two short texts: one run.
  expect(
    boundedRuns(
      Array.from({ length: 32 }, () => 20),
      512,
    ),
  ).toEqual([Array.from({ length: 32 }, (_, i) => i)]);
  // Thirty-two texts of a quarter of the limit: sixteen a run (16 × 128² = 512²).
  expect(
    boundedRuns(
      Array.from({ length: 32 }, () => 128),
      512,
    ).map((run) => run.length),
  ).toEqual([16, 16]);
  // Mixed: shortest first, every index exactly once, no run past the budget.
  const lengths = [500, 10, 300, 12, 11, 512, 256, 256, 256, 256];
  const runs = boundedRuns(lengths, 512);
  expect(runs.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
  expect(runs).toEqual([[1, 4, 3, 6], [7, 8, 9], [2], [0], [5]]);
  for (const run of runs) expect(run.length * Math.max(...run.map((i) => lengths[i]!)) ** 2).toBeLessThanOrEqual(512 * 512);
  expect(boundedRuns([], 512)).toEqual([]);
});

const pool = createComputePool({ threads: 1 });
afterAll(() => pool.close());
const residentMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const longText = (seed: number) => `${seed} ${"a long pasted log about refunds, late orders and broken parcels ".repeat(130)}`;

test("a task of long texts leaves the thread holding no more than one long text did, and each text gets its own vector", async () => {
  // One text at the model's limit: what any model run needs, the plateau of the thread's arena.
  const [alone] = await Promise.all([pool.embedTexts({ modelDir, maxTokens: 512, texts: [longText(0)] })]);
  const plateau = residentMb();
  // Eight such texts in one task: run as one batch, they left the process 215 MB larger (the
  // thread's ONNX Runtime arena); one at a time, about 27 MB.
  const texts = Array.from({ length: 8 }, (_, i) => longText(i));
  const vectors = await pool.embedTexts({ modelDir, maxTokens: 512, texts });
  expect(residentMb() - plateau).toBeLessThan(100);
  expect(vectors.length).toBe(8 * 384);
  // Row 0 is the same text as the one embedded alone, each run holding one text: the same vector.
  const row0 = vectors.subarray(0, 384);
  expect(row0.reduce((sum, value, d) => sum + value * alone![d]!, 0)).toBeGreaterThan(0.9999);
});
