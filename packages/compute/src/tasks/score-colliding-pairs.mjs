// @ts-check
// Worker-thread task: exact similarities of the pairs that share an LSH bucket.
import "./exit-on-pool-close.mjs";
import { moveWithBuffers } from "../clustering/move-with-buffers.mjs";
import { dot } from "../clustering/vectors.mjs";

/** Sort keys are code × ROW_SPAN + row: one sort groups a table's buckets with rows ascending. */
const ROW_SPAN = 2 ** 26;

/**
 * @typedef {object} ScoreCollidingPairsInput
 * @property {Float32Array} vectors rows × dims on a SharedArrayBuffer
 * @property {number} dims
 * @property {Int32Array} codes rows × tables on a SharedArrayBuffer (tasks/hash-rows.mjs)
 * @property {number} tables
 * @property {number} share this task takes the pairs whose smaller row ≡ share (mod shares)
 * @property {number} shares
 * @property {number} floor pairs below it are not returned
 *
 * @typedef {import("../cluster-embeddings.ts").ScoredPairs} ScoredPairs
 */

/**
 * Every pair (a, b), a < b, that shares a bucket in some table, scored once. Rows are visited one
 * at a time and a stamp per row remembers which b were already scored for the current a, so a
 * near-duplicate pair that collides in every table costs one array read per extra table, and no
 * set of seen pairs grows. Splitting by row rather than by table keeps the tasks' shares even when
 * one table has a huge bucket.
 * @param {ScoreCollidingPairsInput} input
 */
export default function scoreCollidingPairs({ vectors, dims, codes, tables, share, shares, floor }) {
  const rows = vectors.length / dims;
  const { order, position, bucketEnd } = bucketLayout(codes, rows, tables);
  const scoredFor = new Int32Array(rows).fill(-1);
  const found = growableScoredPairs();
  for (let a = share; a < rows; a += shares) {
    for (let table = 0; table < tables; table++) {
      const offset = table * rows;
      const end = offset + /** @type {number} */ (bucketEnd[offset + /** @type {number} */ (position[offset + a])]);
      for (let i = offset + /** @type {number} */ (position[offset + a]) + 1; i < end; i++) {
        const b = /** @type {number} */ (order[i]);
        if (scoredFor[b] === a) continue;
        scoredFor[b] = a;
        const similarity = dot(vectors, dims, a, b);
        if (similarity >= floor) found.add(a, b, similarity);
      }
    }
  }
  const result = found.result();
  return moveWithBuffers(result, [/** @type {ArrayBuffer} */ (result.pairs.buffer), /** @type {ArrayBuffer} */ (result.similarities.buffer)]);
}

/**
 * Per table (t × rows + …): the rows in bucket order, rows ascending within a bucket; where each
 * row stands in that order; and for each place, where its bucket ends.
 * @param {Int32Array} codes @param {number} rows @param {number} tables
 */
function bucketLayout(codes, rows, tables) {
  const order = new Int32Array(tables * rows);
  const position = new Int32Array(tables * rows);
  const bucketEnd = new Int32Array(tables * rows);
  const keys = new Float64Array(rows);
  for (let table = 0; table < tables; table++) {
    const offset = table * rows;
    for (let row = 0; row < rows; row++) keys[row] = /** @type {number} */ (codes[row * tables + table]) * ROW_SPAN + row;
    keys.sort();
    for (let start = 0; start < rows; ) {
      const code = Math.floor(/** @type {number} */ (keys[start]) / ROW_SPAN);
      let end = start + 1;
      while (end < rows && Math.floor(/** @type {number} */ (keys[end]) / ROW_SPAN) === code) end++;
      for (let i = start; i < end; i++) {
        const row = /** @type {number} */ (keys[i]) - code * ROW_SPAN;
        order[offset + i] = row;
        position[offset + row] = i;
        bucketEnd[offset + i] = end;
      }
      start = end;
    }
  }
  return { order, position, bucketEnd };
}

function growableScoredPairs() {
  let pairs = new Int32Array(2 * 4096);
  let similarities = new Float64Array(4096);
  let count = 0;
  return {
    /** @param {number} a @param {number} b @param {number} similarity */
    add(a, b, similarity) {
      if (count === similarities.length) {
        const grownPairs = new Int32Array(pairs.length * 2);
        grownPairs.set(pairs);
        pairs = grownPairs;
        const grownSimilarities = new Float64Array(similarities.length * 2);
        grownSimilarities.set(similarities);
        similarities = grownSimilarities;
      }
      pairs[2 * count] = a;
      pairs[2 * count + 1] = b;
      similarities[count++] = similarity;
    },
    /** @returns {ScoredPairs} copies trimmed to the count, so the transfer moves no slack */
    result: () => ({ pairs: pairs.slice(0, 2 * count), similarities: similarities.slice(0, count) }),
  };
}
