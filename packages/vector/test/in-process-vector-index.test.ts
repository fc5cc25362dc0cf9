import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Condition, InProcessVectorIndex } from "../src/index.ts";
import { vectorIndexContract } from "./vector-index.contract.ts";

vectorIndexContract("InProcessVectorIndex", async () => {
  const index = new InProcessVectorIndex({ collections: ["profiles"] });
  return {
    index,
    put: (points) => index.upsert("profiles", points),
    remove: (refs) => index.delete("profiles", refs),
    close: async () => index.close(),
  };
});

vectorIndexContract("InProcessVectorIndex of a collection searched per user (no graph)", async () => {
  const index = new InProcessVectorIndex({ collections: ["profiles"], searchedPerUser: ["profiles"] });
  return {
    index,
    put: (points) => index.upsert("profiles", points),
    remove: (refs) => index.delete("profiles", refs),
    close: async () => index.close(),
  };
});

vectorIndexContract("InProcessVectorIndex restored from its snapshot", async () => {
  const directory = mkdtempSync(join(tmpdir(), "in-process-index-"));
  let index = new InProcessVectorIndex({ collections: ["profiles"], directory });
  // Every write is saved and read back by a new index, as a restarted process would.
  const reopen = () => {
    index.checkpoint({ writes: "saved" });
    index.close();
    index = new InProcessVectorIndex({ collections: ["profiles"], directory });
    subject.index = index;
  };
  const subject = {
    index,
    put: async (points: Parameters<InProcessVectorIndex["upsert"]>[1]) => {
      await index.upsert("profiles", points);
      reopen();
    },
    remove: async (refs: Parameters<InProcessVectorIndex["delete"]>[1]) => {
      await index.delete("profiles", refs);
      reopen();
    },
    close: async () => {
      index.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return subject;
});

describe("InProcessVectorIndex beyond the exact-comparison size", () => {
  const scope = { orgId: "big", projectId: "main" };
  const random = (() => {
    let state = 42;
    return () => {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      return (state / 2 ** 31) * 2 - 1;
    };
  })();
  const points = Array.from({ length: 3000 }, (_, n) => ({
    scope,
    id: `p${n}`,
    vector: Array.from({ length: 384 }, random),
    payload: { user_id: `user-${n % 30}`, status: n % 2 ? "CURRENT" : "ARCHIVED", embedding_model: "m" },
  }));
  const cosine = (a: number[], b: number[]) => {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i++) {
      dot += a[i]! * b[i]!;
      na += a[i]! ** 2;
      nb += b[i]! ** 2;
    }
    return dot / Math.sqrt(na * nb);
  };
  const exactTop = (query: number[], keep: (point: (typeof points)[number]) => boolean, k: number) =>
    points
      .filter(keep)
      .map((point) => ({ id: point.id, similarity: cosine(query, point.vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, k)
      .map((hit) => hit.id);

  test("without a graph (a collection searched per user), every search is exact, and its snapshot holds no graph file", async () => {
    const directory = mkdtempSync(join(tmpdir(), "in-process-graphless-"));
    try {
      const settings = { collections: ["profiles" as const], searchedPerUser: ["profiles" as const], directory };
      const index = new InProcessVectorIndex(settings);
      await index.upsert("profiles", points);
      const query = points[11]!.vector.map((value, i) => value - (i % 5) * 0.02);
      const search = (of: InProcessVectorIndex, must: Condition[]) =>
        of.search("profiles", { vector: query, filter: { scope, must: [{ key: "embedding_model", equals: "m" }, ...must] }, topK: 10 });
      const ids = async (of: InProcessVectorIndex) => [
        (await search(of, [{ key: "user_id", equals: "user-11" }])).map((hit) => hit.id),
        (await search(of, [{ key: "status", anyOf: ["ARCHIVED"] }])).map((hit) => hit.id),
      ];
      const exact = [exactTop(query, (point) => point.payload.user_id === "user-11", 10), exactTop(query, (point) => point.payload.status === "ARCHIVED", 10)];
      expect(await ids(index)).toEqual(exact);
      index.checkpoint({ saved: 1 });
      index.close();
      const generation = readFileSync(join(directory, "CURRENT"), "utf8").trim();
      expect(readdirSync(join(directory, generation)).filter((file) => file.endsWith(".usearch"))).toEqual([]);
      const reopened = new InProcessVectorIndex(settings);
      expect(await ids(reopened)).toEqual(exact);
      reopened.close();
      // Settings that want its graph cannot use the save: the index starts empty, to be filled from the record.
      const graphed = new InProcessVectorIndex({ collections: ["profiles"], directory });
      expect([graphed.restoredMeta, await graphed.ensureCollections()]).toEqual([null, true]);
      graphed.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("a version 3 save, whose partitions all have a graph, is read; a collection searched per user leaves its graph unread", async () => {
    const directory = mkdtempSync(join(tmpdir(), "in-process-v3-"));
    try {
      const index = new InProcessVectorIndex({ collections: ["profiles", "user_playbooks"], directory });
      await index.upsert("profiles", points.slice(0, 1500));
      await index.upsert("user_playbooks", points.slice(1500));
      index.checkpoint({ horizon: 3 });
      index.close();
      const manifestPath = join(directory, readFileSync(join(directory, "CURRENT"), "utf8").trim(), "manifest.json");
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
      const partitions = manifest.partitions.map(({ graph: _, ...entry }: { graph: boolean }) => entry);
      writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: 3, partitions }));

      const reopened = new InProcessVectorIndex({ collections: ["profiles", "user_playbooks"], searchedPerUser: ["profiles"], directory });
      expect([reopened.restoredMeta, await reopened.ensureCollections()]).toEqual([{ horizon: 3 }, false]);
      const query = points[1600]!.vector;
      const top = async (collection: "profiles" | "user_playbooks") =>
        (await reopened.search(collection, { vector: query, filter: { scope, must: [] }, topK: 3 })).map((hit) => hit.id);
      expect(await top("profiles")).toEqual(exactTop(query, (point) => Number(point.id.slice(1)) < 1500, 3));
      expect(await top("user_playbooks")).toEqual(exactTop(query, (point) => Number(point.id.slice(1)) >= 1500, 3));
      reopened.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("one user's search compares that user's points exactly; a filter passing half still finds the nearest", async () => {
    const index = new InProcessVectorIndex({ collections: ["profiles"] });
    await index.upsert("profiles", points);
    const query = points[7]!.vector.map((value, i) => value + (i % 7) * 0.01);
    const search = (must: Condition[]) =>
      index.search("profiles", { vector: query, filter: { scope, must: [{ key: "embedding_model", equals: "m" }, ...must] }, topK: 10 });
    const mine = await search([{ key: "user_id", equals: "user-7" }]);
    expect(mine.map((hit) => hit.id)).toEqual(exactTop(query, (point) => point.payload.user_id === "user-7", 10));
    const current = await search([{ key: "status", anyOf: ["CURRENT"] }]);
    expect(current.map((hit) => hit.id)[0]).toBe(exactTop(query, (point) => point.payload.status === "CURRENT", 1)[0]);
    expect(current.every((hit) => Number(hit.id.slice(1)) % 2 === 1)).toBe(true);
  });

  test("one user's search takes the most similar points that pass the filter and the threshold, with their similarities, whatever their number", async () => {
    const index = new InProcessVectorIndex({ collections: ["profiles"], searchedPerUser: ["profiles"] });
    const query = points[3]!.vector;
    // 13 points of one user (not a multiple of the eight compared side by side), every third left out by the filter.
    const mine = points
      .slice(0, 13)
      .map((point, n) => ({ ...point, payload: { user_id: "one", status: n % 3 === 0 ? "ARCHIVED" : "CURRENT", embedding_model: "m" } }));
    await index.upsert("profiles", mine);
    const similarities = mine.map((point) => cosine(query, point.vector));
    const threshold = [...similarities].sort((a, b) => b - a)[9]!;
    const expected = mine
      .map((point, n) => ({ id: point.id, similarity: similarities[n]!, passes: n % 3 !== 0 }))
      .filter((point) => point.passes && point.similarity > threshold)
      .sort((a, b) => b.similarity - a.similarity);
    const filter = {
      scope,
      must: [
        { key: "user_id", equals: "one" },
        { key: "status", anyOf: ["CURRENT"] },
      ],
    };
    for (const topK of [1, 3, 13]) {
      const hits = await index.search("profiles", { vector: query, filter, topK, threshold });
      expect(hits.map((hit) => hit.id)).toEqual(expected.slice(0, topK).map((point) => point.id));
      for (const [n, hit] of hits.entries()) expect(hit.similarity).toBeCloseTo(expected[n]!.similarity, 5);
    }
    index.close();
  });
});

test("one user's searches are its own, one request's are left to the database", () => {
  const scope = { orgId: "o", projectId: "p" };
  const index = new InProcessVectorIndex({ collections: ["user_playbooks"] });
  const served = (must: Condition[]) => index.serves("user_playbooks", { scope, must });
  expect(served([{ key: "user_id", equals: "ivy" }])).toBe(true);
  expect(served([{ key: "status", anyOf: ["CURRENT"] }])).toBe(true);
  expect(served([{ key: "request_id", equals: "r-1" }])).toBe(false);
  expect(
    served([
      { key: "user_id", equals: "ivy" },
      { key: "generated_from_request_id", equals: "r-1" },
    ]),
  ).toBe(false);
  index.close();
});

test("a cleared index counts as changed, so its next save drops what the last one held", async () => {
  const directory = mkdtempSync(join(tmpdir(), "in-process-clear-"));
  try {
    const scope = { orgId: "o", projectId: "p" };
    const index = new InProcessVectorIndex({ collections: ["profiles"], directory });
    await index.upsert("profiles", [{ scope, id: "gone", vector: new Array(384).fill(0.1), payload: { embedding_model: "m" } }]);
    index.checkpoint({});
    expect(index.changed).toBe(false);
    index.clear();
    expect(index.changed).toBe(true);
    index.checkpoint({});
    const reopened = new InProcessVectorIndex({ collections: ["profiles"], directory });
    expect(await reopened.search("profiles", { vector: new Array(384).fill(0.1), filter: { scope, must: [] }, topK: 5 })).toEqual([]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test("a snapshot of another version (another graph format) is not read: the index starts empty, to be filled from the record", async () => {
  const directory = mkdtempSync(join(tmpdir(), "in-process-version-"));
  try {
    const scope = { orgId: "o", projectId: "p" };
    const index = new InProcessVectorIndex({ collections: ["profiles"], directory });
    await index.upsert("profiles", [{ scope, id: "kept", vector: new Array(384).fill(0.1), payload: { embedding_model: "m" } }]);
    index.checkpoint({ horizon: 7 });
    const reopened = new InProcessVectorIndex({ collections: ["profiles"], directory });
    expect([reopened.restoredMeta, await reopened.ensureCollections()]).toEqual([{ horizon: 7 }, false]);

    const manifestPath = join(directory, readFileSync(join(directory, "CURRENT"), "utf8").trim(), "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    // Version 2 held half-precision graphs: not readable here.
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: 2 }));
    const older = new InProcessVectorIndex({ collections: ["profiles"], directory });
    expect([older.restoredMeta, await older.ensureCollections()]).toEqual([null, true]);
    expect(await older.search("profiles", { vector: new Array(384).fill(0.1), filter: { scope, must: [] }, topK: 5 })).toEqual([]);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
