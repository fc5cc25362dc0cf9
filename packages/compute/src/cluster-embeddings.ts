import { fileURLToPath } from "node:url";
import { moveWithBuffers } from "./clustering/move-with-buffers.mjs";
import { MAX_ROWS, planLsh } from "./clustering/plan-lsh.mjs";
import { dot, seededRandom } from "./clustering/vectors.mjs";

export interface ClusterEmbeddingsInput {
  /** rows × dims, row-major, unit length (cosine similarity is their dot product). */
  vectors: Float32Array;
  dims: number;
  /** Clusters merge while the average pairwise similarity of their members is ≥ this (0..1). */
  threshold: number;
  /** Clusters with fewer members are dropped: their rows get -1. */
  minClusterSize: number;
}

/** Output of tasks/score-colliding-pairs.mjs: (smaller row, larger row) per similarity, ordered by the smaller row. */
export interface ScoredPairs {
  pairs: Int32Array;
  similarities: Float64Array;
}

/** Runs one task file on the pool. */
export type RunTask = (filename: string, task: unknown) => Promise<unknown>;

const taskFile = (name: string) => fileURLToPath(new URL(`./tasks/${name}`, import.meta.url));
const hashRowsFile = taskFile("hash-rows.mjs");
const scoreCollidingPairsFile = taskFile("score-colliding-pairs.mjs");
const agglomerateFile = taskFile("agglomerate.mjs");

/**
 * Pairs this far below the threshold are kept too. They tighten the bound on a link's average
 * (tasks/agglomerate.mjs), so fewer links need all their pairs scored before a merge, at the cost
 * of more edges held in memory.
 */
const FLOOR_BELOW_THRESHOLD = 0.05;
/** Random pairs whose similarities tell the planner how the data collides. */
const SAMPLED_PAIRS = 20_000;
/** Fixed, so the same input always gets the same hyperplanes and the same labels. */
const SEED = 0x5eed_c105;

/**
 * Average-linkage clustering of unit vectors cut at `threshold`, approximated for large inputs:
 * random-hyperplane LSH proposes candidate pairs (hash-rows, then score-colliding-pairs, split
 * across the pool's threads), and the agglomeration over those scored pairs rescoring every link
 * it merges exactly (agglomerate), so it matches exact average linkage unless the tables miss a
 * pair. Labels are 0..k-1 in order of each cluster's smallest row, -1 for rows in no cluster.
 *
 * The vectors are copied once into a SharedArrayBuffer, which every task reads in place: several
 * threads need all rows at once, and a transfer could hand them to only one.
 */
export async function clusterEmbeddings(run: RunTask, threads: number, input: ClusterEmbeddingsInput): Promise<Int32Array> {
  const { dims, threshold, minClusterSize } = validated(input);
  const rows = input.vectors.length / dims;
  if (rows === 0) return new Int32Array(0);
  const vectors = onSharedMemory(input.vectors);
  const floor = threshold - FLOOR_BELOW_THRESHOLD;
  const { bitsPerTable, tables } = planLsh({ rows, dims, threshold, sample: sampledPairSimilarities(vectors, dims, rows) });

  // With no bits every code is 0: one table, one bucket, every pair scored.
  const codes = new Int32Array(new SharedArrayBuffer(rows * tables * Int32Array.BYTES_PER_ELEMENT));
  if (bitsPerTable > 0) {
    const blockRows = Math.ceil(rows / threads);
    await Promise.all(
      Array.from({ length: Math.ceil(rows / blockRows) }, (_, block) =>
        run(hashRowsFile, {
          vectors,
          dims,
          firstRow: block * blockRows,
          endRow: Math.min(rows, (block + 1) * blockRows),
          bitsPerTable,
          tables,
          seed: SEED,
          codes,
        }),
      ),
    );
  }
  const scored = (await Promise.all(
    Array.from({ length: threads }, (_, share) => run(scoreCollidingPairsFile, { vectors, dims, codes, tables, share, shares: threads, floor })),
  )) as ScoredPairs[];
  const buffers = scored.flatMap(({ pairs, similarities }) => [pairs.buffer as ArrayBuffer, similarities.buffer as ArrayBuffer]);
  return (await run(agglomerateFile, moveWithBuffers({ vectors, dims, scored, threshold, floor, minClusterSize }, buffers))) as Int32Array;
}

function validated(input: ClusterEmbeddingsInput): ClusterEmbeddingsInput {
  const { vectors, dims, threshold, minClusterSize } = input;
  if (!Number.isInteger(dims) || dims < 1) throw new RangeError(`dims must be a positive integer, got ${dims}`);
  if (vectors.length % dims !== 0) throw new RangeError(`vectors holds ${vectors.length} values, not a multiple of dims ${dims}`);
  if (vectors.length / dims >= MAX_ROWS) throw new RangeError(`at most ${MAX_ROWS - 1} rows can be clustered, got ${vectors.length / dims}`);
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`threshold must be in 0..1, got ${threshold}`);
  if (!Number.isInteger(minClusterSize) || minClusterSize < 1) throw new RangeError(`minClusterSize must be a positive integer, got ${minClusterSize}`);
  return input;
}

function onSharedMemory(vectors: Float32Array): Float32Array {
  if (vectors.buffer instanceof SharedArrayBuffer) return vectors;
  const shared = new Float32Array(new SharedArrayBuffer(vectors.byteLength));
  shared.set(vectors);
  return shared;
}

/** Similarities of random pairs of distinct rows (none for a single row). */
function sampledPairSimilarities(vectors: Float32Array, dims: number, rows: number): Float64Array {
  if (rows < 2) return new Float64Array(0);
  const random = seededRandom(SEED);
  return Float64Array.from({ length: SAMPLED_PAIRS }, () => {
    const a = Math.floor(random() * rows);
    const b = (a + 1 + Math.floor(random() * (rows - 1))) % rows;
    return dot(vectors, dims, a, b);
  });
}
