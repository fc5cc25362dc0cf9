// @ts-check
// Chooses the random-hyperplane LSH tables for one clustering from the data's own similarities.

/** Chance that a pair at exactly the threshold shares a bucket in at least one table. */
const RECALL_AT_THRESHOLD = 0.99;
/** Codes are at most this many bits so that code × 2^26 + row stays an exact double (tasks/score-colliding-pairs.mjs). */
const MAX_BITS_PER_TABLE = 24;
export const MAX_ROWS = 2 ** 26;
/** The codes (rows × tables int32) stay under 100 MB at 50k rows. */
const MAX_TABLES = 512;

// Costs in units of one exact similarity (a `dims`-long dot product), measured roughly on Bun and
// Node: sorting a table costs about 0.01 × log2(rows) per row, visiting a colliding pair (a stamp check) 0.01.
const SORT_COST_PER_ROW_AND_LEVEL = 0.01;
const COLLISION_COST = 0.01;

/**
 * Hyperplanes come from pseudo-random rotations (../tasks/hash-rows.mjs): `rotationDims` is the
 * padded dimension, each rotation yields that many sign bits at the cost of three fast
 * Walsh–Hadamard transforms.
 * @param {number} dims
 */
export function rotationDims(dims) {
  return 2 ** Math.ceil(Math.log2(Math.max(dims, 2)));
}

/** @param {number} similarity chance that one random hyperplane puts both vectors on the same side */
const sameSide = (similarity) => 1 - Math.acos(Math.min(1, Math.max(-1, similarity))) / Math.PI;

/**
 * @typedef {{ bitsPerTable: number; tables: number; estimatedCost: number }} LshPlan
 * bitsPerTable 0 means one table where every pair collides: the exact all-pairs scan.
 */

/**
 * The table shape with the least expected work that still finds a pair at the threshold with
 * probability ≥ RECALL_AT_THRESHOLD. A table of K bits puts a pair of similarity s in one bucket
 * with probability p(s)^K, p(s) = 1 − arccos(s)/π; `sample` holds the similarities of random pairs,
 * so the mean of p(s)^K over it estimates the share of all pairs that collide. This fits the tables
 * to the data: many near-duplicates or a low threshold push towards the all-pairs scan, which is
 * chosen whenever it is cheaper.
 * @param {{ rows: number; dims: number; threshold: number; sample: Float64Array }} input
 * @returns {LshPlan}
 */
export function planLsh({ rows, dims, threshold, sample }) {
  const pairs = (rows * (rows - 1)) / 2;
  /** @type {LshPlan} */
  let best = { bitsPerTable: 0, tables: 1, estimatedCost: pairs };
  if (sample.length === 0) return best;
  const bitsPerRotation = rotationDims(dims);
  const rotationCost = (3 * bitsPerRotation * (Math.log2(bitsPerRotation) + 1)) / dims;
  const sampleSameSide = Float64Array.from(sample, sameSide);
  const atThreshold = sameSide(threshold);
  for (let bits = 1; bits <= MAX_BITS_PER_TABLE; bits++) {
    const collides = atThreshold ** bits;
    const tables = collides >= 1 ? 1 : Math.ceil(Math.log(1 - RECALL_AT_THRESHOLD) / Math.log(1 - collides));
    if (tables > MAX_TABLES) continue;
    let collisionsPerPair = 0;
    let scoredPerPair = 0;
    for (const p of sampleSameSide) {
      const inOneTable = p ** bits;
      collisionsPerPair += tables * inOneTable;
      scoredPerPair += 1 - (1 - inOneTable) ** tables;
    }
    const hashing = rows * Math.ceil((bits * tables) / bitsPerRotation) * rotationCost;
    const sorting = tables * rows * Math.log2(rows) * SORT_COST_PER_ROW_AND_LEVEL;
    const candidates = (pairs / sample.length) * (collisionsPerPair * COLLISION_COST + scoredPerPair);
    const estimatedCost = hashing + sorting + candidates;
    if (estimatedCost < best.estimatedCost) best = { bitsPerTable: bits, tables, estimatedCost };
  }
  return best;
}
