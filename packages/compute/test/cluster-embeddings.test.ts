import { afterAll, describe, expect, test } from "bun:test";
import { adjustedRandIndex, averageLinkageExact, createComputePool } from "../src/index.ts";
import { clusteredVectors } from "./clustered-vectors.ts";

const pool = createComputePool({ threads: 2 });
afterAll(() => pool.close());

const dims = 64;
const data = clusteredVectors({ groups: 20, perGroup: 15, singletons: 40, dims, seed: 7 });
const cluster = (vectors: Float32Array, threshold = 0.8, minClusterSize = 2) => pool.clusterEmbeddings({ vectors, dims, threshold, minClusterSize });

describe("clusterEmbeddings on the pool", () => {
  test("finds the exact average-linkage clusters: 20 groups, singletons in none", async () => {
    const labels = await cluster(data.vectors);
    const exact = averageLinkageExact(data.vectors, dims, 0.8, 2);
    expect(adjustedRandIndex(labels, exact)).toBe(1);
    expect([...labels]).toEqual([...exact]);
    expect(new Set(labels.filter((label) => label >= 0)).size).toBe(20);
    data.groupOfRow.forEach((group, row) => {
      if (group === -1) expect(labels[row]).toBe(-1);
      else expect(labels[row]).toBeGreaterThanOrEqual(0);
    });
  });

  test("labels clusters 0..k-1 in order of their smallest row", async () => {
    const labels = await cluster(data.vectors);
    const firstSeen = [...labels].filter((label, row) => label >= 0 && labels.indexOf(label) === row);
    expect(firstSeen).toEqual(firstSeen.map((_, index) => index));
  });

  test("is deterministic, and does not depend on the pool size", async () => {
    const first = await cluster(data.vectors);
    const second = await cluster(data.vectors);
    const onePool = createComputePool({ threads: 1 });
    try {
      const onOneThread = await onePool.clusterEmbeddings({ vectors: data.vectors, dims, threshold: 0.8, minClusterSize: 2 });
      expect([...second]).toEqual([...first]);
      expect([...onOneThread]).toEqual([...first]);
    } finally {
      await onePool.close();
    }
  });

  test("merges a pair exactly at the threshold, not just above it", async () => {
    // cos = 0.5 exactly in float32: (1, 0) against (0.5, 0.75 ** 0.5) rounded; the dot is 0.5.
    const vectors = new Float32Array([1, 0, 0.5, Math.sqrt(0.75), -1, 0]);
    const similarity = vectors[0]! * vectors[2]!;
    expect(similarity).toBe(0.5);
    const at = await pool.clusterEmbeddings({ vectors, dims: 2, threshold: 0.5, minClusterSize: 2 });
    const above = await pool.clusterEmbeddings({ vectors, dims: 2, threshold: 0.5000001, minClusterSize: 2 });
    expect([...at]).toEqual([0, 0, -1]);
    expect([...above]).toEqual([-1, -1, -1]);
  });

  test("threshold 0 joins every pair whose average is not negative; threshold 1 only identical rows", async () => {
    const vectors = new Float32Array([1, 0, 0, 1, 1, 0, -1, 0]);
    expect([...(await pool.clusterEmbeddings({ vectors, dims: 2, threshold: 0, minClusterSize: 2 }))]).toEqual([...averageLinkageExact(vectors, 2, 0, 2)]);
    expect([...(await pool.clusterEmbeddings({ vectors, dims: 2, threshold: 1, minClusterSize: 2 }))]).toEqual([0, -1, 0, -1]);
  });

  test("an empty input gives no labels; a single row is in no cluster", async () => {
    expect(await cluster(new Float32Array(0))).toEqual(new Int32Array(0));
    expect([...(await cluster(data.vectors.slice(0, dims)))]).toEqual([-1]);
  });

  test("drops clusters smaller than minClusterSize", async () => {
    const labels = await cluster(data.vectors, 0.8, 16);
    expect([...labels].every((label) => label === -1)).toBe(true);
    const kept = await cluster(data.vectors, 0.8, 15);
    expect(new Set(kept.filter((label) => label >= 0)).size).toBe(20);
    const singletonsToo = await cluster(data.vectors, 0.8, 1);
    expect(singletonsToo.includes(-1)).toBe(false);
    expect(new Set(singletonsToo).size).toBe(60);
  });

  test("agrees with exact average linkage where groups overlap (looser threshold, noisier groups)", async () => {
    const noisy = clusteredVectors({ groups: 30, perGroup: 20, singletons: 100, dims, seed: 11, noise: 0.6 });
    // Pairs within a group are about 0.73 similar: at 0.5 and 0.65 groups stay whole.
    for (const threshold of [0.5, 0.65]) {
      const labels = await cluster(noisy.vectors, threshold);
      expect(adjustedRandIndex(labels, averageLinkageExact(noisy.vectors, dims, threshold, 2))).toBe(1);
    }
    // At 0.75 groups break into pairs and triples that hinge on single pairs, and the LSH tables
    // miss 1% of the pairs at the threshold: agreement is close, not exact.
    const labels = await cluster(noisy.vectors, 0.75);
    expect(adjustedRandIndex(labels, averageLinkageExact(noisy.vectors, dims, 0.75, 2))).toBeGreaterThan(0.95);
  });

  test("rejects malformed input", async () => {
    await expect(pool.clusterEmbeddings({ vectors: new Float32Array(5), dims: 2, threshold: 0.8, minClusterSize: 2 })).rejects.toThrow("multiple of dims");
    await expect(pool.clusterEmbeddings({ vectors: new Float32Array(4), dims: 2, threshold: 1.5, minClusterSize: 2 })).rejects.toThrow("threshold");
    await expect(pool.clusterEmbeddings({ vectors: new Float32Array(4), dims: 2, threshold: 0.8, minClusterSize: 0 })).rejects.toThrow("minClusterSize");
  });
});

describe("adjustedRandIndex", () => {
  test("is 1 for the same partition under other label names, lower for others", () => {
    expect(adjustedRandIndex(Int32Array.from([0, 0, 1, 1, -1]), Int32Array.from([1, 1, 0, 0, -1]))).toBe(1);
    expect(adjustedRandIndex(Int32Array.from([0, 0, 1, 1]), Int32Array.from([0, 1, 0, 1]))).toBeLessThan(0);
    // -1 rows are each alone: agreeing that all rows are unclustered is agreement.
    expect(adjustedRandIndex(Int32Array.from([-1, -1, -1]), Int32Array.from([-1, -1, -1]))).toBe(1);
    expect(adjustedRandIndex(Int32Array.from([-1, -1, -1]), Int32Array.from([0, 0, 0]))).toBe(0);
  });
});
