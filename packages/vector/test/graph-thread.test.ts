import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GraphShape, GraphThread } from "../src/in-process/graph-thread.ts";

// The thread that holds the in-process index's graphs: it must apply adds and removals in the order
// sent before any later search, save and load like usearch itself, and, once anything fails in it,
// fail every call after rather than answer from graphs that no longer match the points kept beside them.

const SHAPE: GraphShape = { dimensions: 8, metric: "cos", quantization: "f32", multi: false, connectivity: 16, expansion_add: 64, expansion_search: 64 };
const threads: GraphThread[] = [];
const started = () => {
  const thread = new GraphThread();
  threads.push(thread);
  return thread;
};
afterEach(() => {
  for (const thread of threads.splice(0)) thread.close();
});

/** Unit vector along axis `axis` of 8, turned slightly toward axis 0 by `lean` (so every point is distinct). */
const vector = (axis: number, lean = 0) => Float32Array.from({ length: 8 }, (_, i) => (i === axis ? 1 : i === 0 ? lean : 0));
const rows = (...vectors: Float32Array[]) => {
  const out = new Float32Array(vectors.length * 8);
  for (const [i, v] of vectors.entries()) out.set(v, i * 8);
  return out;
};

describe("the graph thread", () => {
  test("a search sees every add and removal sent before it", async () => {
    const thread = started();
    const graph = thread.create(SHAPE);
    thread.add(graph, BigUint64Array.from([1n, 2n, 3n]), rows(vector(1), vector(2), vector(3)), 1);
    const nearest = await thread.search(graph, vector(2, 0.1), 3);
    expect(nearest.keys[0]).toBe(2n);
    expect(nearest.keys.length).toBe(3);
    thread.remove(graph, BigUint64Array.from([2n]));
    thread.add(graph, BigUint64Array.from([4n]), rows(vector(2, 0.2)), 1);
    const after = await thread.search(graph, vector(2, 0.1), 3);
    expect(after.keys[0]).toBe(4n);
    expect([...after.keys]).not.toContain(2n);
    expect(after.distances[0]).toBeLessThan(0.05);
  });

  test("graphs are apart, and a save loads back into another thread", async () => {
    const directory = mkdtempSync(join(tmpdir(), "graph-thread-"));
    try {
      const thread = started();
      const first = thread.create(SHAPE);
      const second = thread.create(SHAPE);
      thread.add(first, BigUint64Array.from([10n, 11n]), rows(vector(1), vector(5)), 1);
      thread.add(second, BigUint64Array.from([20n]), rows(vector(5)), 1);
      expect([...(await thread.search(second, vector(1), 5)).keys]).toEqual([20n]);
      thread.save(first, join(directory, "first.usearch"));
      const other = started();
      const loaded = other.create(SHAPE);
      expect(other.load(loaded, join(directory, "first.usearch"))).toBe(2);
      expect((await other.search(loaded, vector(5), 1)).keys[0]).toBe(11n);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("a failed add fails the thread: waiting and later searches reject with it, nothing more is sent", async () => {
    const thread = started();
    const graph = thread.create(SHAPE);
    thread.add(graph, BigUint64Array.from([1n]), rows(vector(1)), 1);
    // Three values where the graph takes eight: usearch refuses them inside the thread.
    const failing = thread.add(graph, BigUint64Array.from([2n]), Float32Array.from([1, 2, 3]), 1);
    const waiting = thread.search(graph, vector(1), 1);
    const [added, searched] = await Promise.allSettled([failing, waiting]);
    expect(thread.failure).toBeInstanceOf(Error);
    expect(added).toEqual({ status: "rejected", reason: thread.failure });
    expect(searched).toEqual({ status: "rejected", reason: thread.failure });
    await expect(thread.search(graph, vector(1), 1)).rejects.toBe(thread.failure!);
    await expect(thread.add(graph, BigUint64Array.from([3n]), rows(vector(3)), 1)).rejects.toBe(thread.failure!);
    expect(() => thread.save(graph, join(tmpdir(), "never.usearch"))).toThrow(thread.failure!);
  });

  test("a failed load is the caller's error and leaves the thread working", async () => {
    const thread = started();
    const graph = thread.create(SHAPE);
    expect(() => thread.load(graph, join(tmpdir(), "graph-thread-missing", "none.usearch"))).toThrow();
    expect(thread.failure).toBeNull();
    const other = thread.create(SHAPE);
    thread.add(other, BigUint64Array.from([7n]), rows(vector(4)), 1);
    expect([...(await thread.search(other, vector(4), 1)).keys]).toEqual([7n]);
  });

  test("threads closed while they start, or while they work, end without taking the process down", async () => {
    // Terminated from outside while loading usearch, a thread crashed the whole process (Bun 1.3).
    for (let round = 0; round < 40; round++) {
      const thread = started();
      const graph = thread.create(SHAPE);
      // Closed before it holds them: the add is refused, not lost silently.
      if (round % 2 === 1) void thread.add(graph, BigUint64Array.from([1n, 2n]), rows(vector(1), vector(2)), 1).catch(() => {});
      await Bun.sleep(round % 9);
      thread.close();
    }
    await Bun.sleep(200);
    const thread = started();
    const graph = thread.create(SHAPE);
    thread.add(graph, BigUint64Array.from([9n]), rows(vector(6)), 1);
    expect([...(await thread.search(graph, vector(6), 1)).keys]).toEqual([9n]);
  });

  test("closed, it answers nothing", async () => {
    const thread = started();
    const graph = thread.create(SHAPE);
    await thread.add(graph, BigUint64Array.from([1n]), rows(vector(1)), 1);
    thread.close();
    await expect(thread.search(graph, vector(1), 1)).rejects.toThrow("closed");
  });
});
