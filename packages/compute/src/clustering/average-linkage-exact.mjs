// @ts-check
import { labelClusters } from "./label-clusters.mjs";
import { dot } from "./vectors.mjs";

/**
 * Exact average-linkage agglomerative clustering cut at `threshold`: clusters merge while the
 * average pairwise cosine similarity of their members is ≥ threshold; clusters smaller than
 * minClusterSize get -1, the others 0..k-1 in order of their smallest row.
 *
 * The reference for the approximate pool version: O(n²) memory (a dense similarity matrix, 32 MB
 * at n = 2,000) and O(n²) time by the nearest-neighbour chain. Average linkage is reducible (a
 * merged cluster is never more similar to a third one than the closer of its parts), so the chain
 * merges the same pairs as the greedy "most similar pair first" order, and a cluster whose most
 * similar neighbour is below the threshold can be retired for good.
 * @param {Float32Array} vectors n × dims, row-major, unit length
 * @param {number} dims @param {number} threshold @param {number} minClusterSize
 * @returns {Int32Array}
 */
export function averageLinkageExact(vectors, dims, threshold, minClusterSize) {
  const n = vectors.length / dims;
  const similarity = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) similarity[a * n + b] = similarity[b * n + a] = dot(vectors, dims, a, b);
  }
  const size = new Int32Array(n).fill(1);
  // A merged cluster keeps the index of one part; clusterOf follows the absorbed ones there.
  const clusterOf = Int32Array.from({ length: n }, (_, row) => row);
  /** @type {Set<number>} */
  const active = new Set(clusterOf);
  /** @type {number[]} */
  const chain = [];
  while (active.size > 1) {
    if (chain.length === 0) chain.push(/** @type {number} */ (active.values().next().value));
    const a = /** @type {number} */ (chain[chain.length - 1]);
    const previous = chain.length > 1 ? /** @type {number} */ (chain[chain.length - 2]) : -1;
    // Ties go to the previous link of the chain, which keeps the chain from cycling.
    let best = previous;
    let bestSimilarity = previous >= 0 ? /** @type {number} */ (similarity[a * n + previous]) : -Infinity;
    for (const c of active) {
      if (c !== a && /** @type {number} */ (similarity[a * n + c]) > bestSimilarity) {
        best = c;
        bestSimilarity = /** @type {number} */ (similarity[a * n + c]);
      }
    }
    if (bestSimilarity < threshold) {
      active.delete(a);
      chain.pop();
    } else if (best === previous) {
      chain.length -= 2;
      merge(a, best);
    } else {
      chain.push(best);
    }
  }

  /** @param {number} a @param {number} b */
  function merge(a, b) {
    const [kept, absorbed] = a < b ? [a, b] : [b, a];
    const sizeKept = /** @type {number} */ (size[kept]);
    const sizeAbsorbed = /** @type {number} */ (size[absorbed]);
    for (const c of active) {
      if (c === kept || c === absorbed) continue;
      const merged =
        (sizeKept * /** @type {number} */ (similarity[kept * n + c]) + sizeAbsorbed * /** @type {number} */ (similarity[absorbed * n + c])) /
        (sizeKept + sizeAbsorbed);
      similarity[kept * n + c] = similarity[c * n + kept] = merged;
    }
    size[kept] = sizeKept + sizeAbsorbed;
    active.delete(absorbed);
    clusterOf[absorbed] = kept;
  }

  // Absorbed indices point at the cluster that took them, which may itself have been absorbed.
  const root = (/** @type {number} */ row) => {
    let cluster = row;
    while (clusterOf[cluster] !== cluster) cluster = /** @type {number} */ (clusterOf[cluster]);
    return cluster;
  };
  return labelClusters(
    Int32Array.from({ length: n }, (_, row) => root(row)),
    minClusterSize,
  );
}
