// @ts-check
// Worker-thread task: average-linkage agglomeration over the sparse graph of scored pairs.
import "./exit-on-pool-close.mjs";
import { move } from "piscina";
import { labelClusters } from "../clustering/label-clusters.mjs";
import { createLinkHeap } from "../clustering/link-heap.mjs";
import { dot } from "../clustering/vectors.mjs";

/**
 * @typedef {object} AgglomerateInput
 * @property {Float32Array} vectors rows × dims on a SharedArrayBuffer
 * @property {number} dims
 * @property {import("../cluster-embeddings.ts").ScoredPairs[]} scored every pair with similarity ≥ floor, once
 * @property {number} threshold
 * @property {number} floor pairs missing from `scored` are taken to be below it
 * @property {number} minClusterSize
 */

/**
 * Greedy average linkage: repeatedly merges the two clusters with the highest average pairwise
 * similarity while it is ≥ threshold, as exact average linkage does, but without scoring all pairs.
 *
 * A link between two clusters keeps the sum of the similarities of its scored member pairs and how
 * many pairs that covers. Pairs never scored are below `floor` (the LSH tables find pairs at the
 * threshold with 99% probability, and pairs a little lower almost as often), so a link's average
 * is at most (sum + unscored × floor) / pairs: the heap is ordered by that upper bound. When a link
 * with unscored pairs reaches the top, all its member pairs are scored exactly and it goes back
 * with its true average; a link is merged only when its average is exact and still the highest
 * bound. So every merge is one exact average linkage would make, in the same order, unless the
 * tables missed a pair above the floor; imputing 0 (or the floor) instead would shift averages of
 * loosely connected clusters and split (or join) them differently from the exact algorithm.
 * @param {AgglomerateInput} input
 */
export default function agglomerate({ vectors, dims, scored, threshold, floor, minClusterSize }) {
  const rows = vectors.length / dims;
  const linkCount = scored.reduce((sum, part) => sum + part.similarities.length, 0);
  // Link l joins clusters ends[2l] and ends[2l + 1]; a cluster is named by one of its rows.
  const ends = new Int32Array(2 * linkCount);
  const similaritySum = new Float64Array(linkCount);
  const scoredPairs = new Float64Array(linkCount);
  const dead = new Uint8Array(linkCount);
  const size = new Int32Array(rows).fill(1);
  const smallestRow = Int32Array.from({ length: rows }, (_, row) => row);
  // Members as linked lists, so a merge appends in O(1).
  const nextMember = new Int32Array(rows).fill(-1);
  const lastMember = Int32Array.from({ length: rows }, (_, row) => row);
  const absorbedRows = new Uint8Array(rows);
  const degree = new Int32Array(rows);
  /** @type {number[][]} links of each cluster; entries of dead links are dropped lazily */
  const linksOf = Array.from({ length: rows }, () => []);

  // Links are numbered in row order whatever the number of parts (part p holds the rows ≡ p), so
  // ties in the heap break the same way on any pool size.
  const cursors = scored.map(() => 0);
  for (let a = 0, link = 0; a < rows; a++) {
    const part = a % scored.length;
    const { pairs, similarities } = /** @type {import("../cluster-embeddings.ts").ScoredPairs} */ (scored[part]);
    for (let i = /** @type {number} */ (cursors[part]); i < similarities.length && pairs[2 * i] === a; i++, link++) {
      const b = /** @type {number} */ (pairs[2 * i + 1]);
      ends[2 * link] = a;
      ends[2 * link + 1] = b;
      similaritySum[link] = /** @type {number} */ (similarities[i]);
      scoredPairs[link] = 1;
      degree[a] = /** @type {number} */ (degree[a]) + 1;
      degree[b] = /** @type {number} */ (degree[b]) + 1;
      /** @type {number[]} */ (linksOf[a]).push(link);
      /** @type {number[]} */ (linksOf[b]).push(link);
      cursors[part] = i + 1;
    }
  }

  // During a merge, mark[c] === the merged link says the kept cluster links to c, by markedLink[c].
  const mark = new Int32Array(rows).fill(-1);
  const markedLink = new Int32Array(rows);
  const heap = createLinkHeap();
  // The highest bound a link has in the heap (-Infinity if none): a changed link needs a new
  // entry only when its bound rose above it, as a folded link's can.
  const queuedBound = new Float64Array(linkCount).fill(-Infinity);
  /** @param {number} l */
  const push = (l) => {
    const bound = upperBound(l);
    if (bound >= threshold && bound > /** @type {number} */ (queuedBound[l])) {
      heap.push(bound, l);
      queuedBound[l] = bound;
    }
  };
  /** @param {number} l */
  const allPairs = (l) =>
    /** @type {number} */ (size[/** @type {number} */ (ends[2 * l])]) * /** @type {number} */ (size[/** @type {number} */ (ends[2 * l + 1])]);
  /** @param {number} l */
  const upperBound = (l) => {
    const pairs = allPairs(l);
    const sum = /** @type {number} */ (similaritySum[l]);
    const scoredCount = /** @type {number} */ (scoredPairs[l]);
    return (sum + (pairs - scoredCount) * floor) / pairs;
  };
  for (let l = 0; l < linkCount; l++) push(l);

  while (heap.size > 0) {
    const top = heap.pop();
    const l = top.link;
    if (dead[l]) continue;
    if (top.bound === queuedBound[l]) queuedBound[l] = -Infinity;
    const bound = upperBound(l);
    // An entry pushed before a merge changed the link: its current bound decides.
    if (bound !== top.bound) {
      push(l);
      continue;
    }
    if (/** @type {number} */ (scoredPairs[l]) < allPairs(l)) {
      scoreAllPairs(l);
      push(l);
      continue;
    }
    merge(l);
  }

  /** @param {number} l */
  function scoreAllPairs(l) {
    let sum = 0;
    for (let a = /** @type {number} */ (ends[2 * l]); a >= 0; a = /** @type {number} */ (nextMember[a])) {
      for (let b = /** @type {number} */ (ends[2 * l + 1]); b >= 0; b = /** @type {number} */ (nextMember[b])) sum += dot(vectors, dims, a, b);
    }
    similaritySum[l] = sum;
    scoredPairs[l] = allPairs(l);
  }

  /** @param {number} l */
  function merge(l) {
    dead[l] = 1;
    const [a, b] = /** @type {[number, number]} */ ([ends[2 * l], ends[2 * l + 1]]);
    // The cluster with more links keeps its list; the other's links are moved or folded into it.
    const [kept, absorbed] = /** @type {number} */ (degree[a]) >= /** @type {number} */ (degree[b]) ? [a, b] : [b, a];
    const keptLinks = [];
    for (const k of /** @type {number[]} */ (linksOf[kept])) {
      if (dead[k]) continue;
      const other = otherEnd(k, kept);
      mark[other] = l;
      markedLink[other] = k;
      keptLinks.push(k);
    }
    /** @type {number[]} */
    const folded = [];
    for (const k of /** @type {number[]} */ (linksOf[absorbed])) {
      if (dead[k]) continue;
      const other = otherEnd(k, absorbed);
      if (mark[other] === l) {
        const into = /** @type {number} */ (markedLink[other]);
        similaritySum[into] = /** @type {number} */ (similaritySum[into]) + /** @type {number} */ (similaritySum[k]);
        scoredPairs[into] = /** @type {number} */ (scoredPairs[into]) + /** @type {number} */ (scoredPairs[k]);
        dead[k] = 1;
        folded.push(into);
      } else {
        ends[ends[2 * k] === absorbed ? 2 * k : 2 * k + 1] = kept;
        keptLinks.push(k);
      }
    }
    linksOf[kept] = keptLinks;
    linksOf[absorbed] = [];
    absorbedRows[absorbed] = 1;
    degree[kept] = keptLinks.length;
    size[kept] = /** @type {number} */ (size[kept]) + /** @type {number} */ (size[absorbed]);
    smallestRow[kept] = Math.min(/** @type {number} */ (smallestRow[kept]), /** @type {number} */ (smallestRow[absorbed]));
    nextMember[/** @type {number} */ (lastMember[kept])] = absorbed;
    lastMember[kept] = /** @type {number} */ (lastMember[absorbed]);
    // A folded link's average lies between those of its two parts, so it may now rank above
    // both of their heap entries; every other link of the merged cluster can only have fallen
    // (or stays below the floor), and its old entry is re-checked when it comes up.
    for (const k of folded) push(k);
  }

  /** @param {number} k @param {number} end */
  function otherEnd(k, end) {
    return /** @type {number} */ (ends[2 * k] === end ? ends[2 * k + 1] : ends[2 * k]);
  }

  const clusterOfRow = new Int32Array(rows);
  for (let row = 0; row < rows; row++) {
    if (absorbedRows[row]) continue;
    for (let member = row; member >= 0; member = /** @type {number} */ (nextMember[member])) clusterOfRow[member] = row;
  }
  return move(labelClusters(clusterOfRow, minClusterSize));
}
