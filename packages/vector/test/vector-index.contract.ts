import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { Scope } from "@als/db";
import type { Condition, PointRef, VectorIndex, VectorPoint } from "../src/index.ts";

/** An implementation under the contract, and how its points get written (through the index, or as rows of the record). */
export interface ContractSubject {
  index: VectorIndex;
  put(points: VectorPoint[]): Promise<void>;
  remove(refs: PointRef[]): Promise<void>;
  close(): Promise<void>;
}

const COLLECTION = "profiles";
const MODEL = "contract-model";
const DIMENSIONS = 384;
const POINTS = 80;

/** The angle of the point of `rank` from the query axis: rank 0 is nearest, similarity cos(angle). */
const angleOf = (rank: number) => (rank + 1) * 0.015;
const similarityOf = (rank: number) => Math.cos(angleOf(rank));

/** cos(angle) along axis 0 plus sin(angle) along an axis of its own, so every point sits at its own place. */
function vectorAt(rank: number): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  vector[0] = Math.cos(angleOf(rank));
  vector[1 + rank] = Math.sin(angleOf(rank));
  return vector;
}
const QUERY = Array.from({ length: DIMENSIONS }, (_, axis) => (axis === 0 ? 1 : 0));

const idOf = (rank: number) => `p${String(rank).padStart(2, "0")}`;
const ids = (ranks: number[]) => ranks.map(idOf);
const ranksWhere = (keep: (rank: number) => boolean, count: number) =>
  Array.from({ length: POINTS }, (_, rank) => rank)
    .filter(keep)
    .slice(0, count);

const STATUSES = ["ARCHIVED", "CURRENT", "PENDING"];
const TAGS = [["alpha"], ["beta", "gamma"], [], []];

function pointAt(scope: Scope, rank: number, overrides: Partial<VectorPoint["payload"]> = {}): VectorPoint {
  return {
    scope,
    id: idOf(rank),
    vector: vectorAt(rank),
    payload: {
      user_id: rank < 50 ? "near-user" : "far-user",
      status: STATUSES[rank % 3]!,
      source: "contract",
      tags: TAGS[rank % 4]!,
      embedding_model: MODEL,
      created_at: 1000 + rank,
      last_modified_timestamp: 1000 + rank,
      expires_at: rank % 5 === 0 ? null : 2000 + rank,
      ...overrides,
    },
  };
}

/**
 * The behaviour every VectorIndex shares, over the profiles collection. `skipReason` skips every
 * case, saying why in each case's name.
 */
export function vectorIndexContract(name: string, open: () => Promise<ContractSubject>, skipReason?: string) {
  const skipped = skipReason !== undefined;
  const contractTest = (title: string, body: () => Promise<void>) => test.skipIf(skipped)(skipped ? `${title} (skipped: ${skipReason})` : title, body);

  describe(`${name} (VectorIndex contract)`, () => {
    const org = `contract-${randomUUID()}`;
    const main: Scope = { orgId: org, projectId: "main" };
    let subject: ContractSubject;
    const search = (must: Condition[], topK: number, options: { scope?: Scope; threshold?: number } = {}) =>
      subject.index.search(COLLECTION, {
        vector: QUERY,
        filter: { scope: options.scope ?? main, must: [{ key: "embedding_model", equals: MODEL }, ...must] },
        topK,
        threshold: options.threshold,
      });
    const foundIds = async (must: Condition[], topK: number, options?: { scope?: Scope; threshold?: number }) =>
      (await search(must, topK, options)).map((hit) => hit.id);

    beforeAll(async () => {
      if (skipped) return;
      subject = await open();
      await subject.index.ensureCollections();
      await subject.put(Array.from({ length: POINTS }, (_, rank) => pointAt(main, rank)));
    });
    afterAll(async () => {
      if (!skipped) await subject.close();
    });

    contractTest("returns the nearest points first, with their cosine similarity", async () => {
      const hits = await search([], 5);
      expect(hits.map((hit) => hit.id)).toEqual(ids([0, 1, 2, 3, 4]));
      for (const [rank, hit] of hits.entries()) expect(hit.similarity).toBeCloseTo(similarityOf(rank), 3);
    });

    contractTest("keeps only points above the threshold", async () => {
      const threshold = (similarityOf(9) + similarityOf(10)) / 2;
      expect(await foundIds([], 50, { threshold })).toEqual(ids(ranksWhere((rank) => rank <= 9, 50)));
    });

    contractTest("filters by equality inside the query: excluding the 50 nearest still fills top_k", async () => {
      expect(await foundIds([{ key: "user_id", equals: "far-user" }], 5)).toEqual(ids([50, 51, 52, 53, 54]));
    });

    contractTest("filters by any-of", async () => {
      expect(await foundIds([{ key: "status", anyOf: ["CURRENT"] }], 5)).toEqual(ids(ranksWhere((rank) => rank % 3 === 1, 5)));
    });

    contractTest("filters by array overlap (tags)", async () => {
      expect(await foundIds([{ key: "tags", overlaps: ["gamma", "delta"] }], 5)).toEqual(ids(ranksWhere((rank) => rank % 4 === 1, 5)));
    });

    contractTest("filters by numeric range", async () => {
      const found = await foundIds([{ key: "created_at", range: { gte: 1060, lte: 1070 } }], 20);
      expect(found).toEqual(ids(ranksWhere((rank) => rank >= 60 && rank <= 70, 20)));
    });

    contractTest("filters by numeric range that a null value passes", async () => {
      const found = await foundIds([{ key: "expires_at", range: { gt: 2040 }, orNull: true }], 12);
      expect(found).toEqual(ids(ranksWhere((rank) => rank % 5 === 0 || rank > 40, 12)));
    });

    contractTest("combines conditions", async () => {
      const must: Condition[] = [
        { key: "user_id", equals: "near-user" },
        { key: "status", anyOf: ["PENDING", "CURRENT"] },
        { key: "tags", overlaps: ["alpha"] },
      ];
      expect(await foundIds(must, 5)).toEqual(ids(ranksWhere((rank) => rank < 50 && rank % 3 !== 0 && rank % 4 === 0, 5)));
    });

    contractTest("keeps projects apart, also for the same ids", async () => {
      const other: Scope = { orgId: org, projectId: "other" };
      await subject.put([pointAt(other, 0, { user_id: "other-user" }), pointAt(other, 70, { user_id: "other-user" })]);
      expect(await foundIds([], 10, { scope: other })).toEqual(ids([0, 70]));
      expect(await foundIds([{ key: "user_id", equals: "other-user" }], 10)).toEqual([]);
      expect(await foundIds([], 1, { scope: { orgId: `${org}-elsewhere`, projectId: "main" } })).toEqual([]);
    });

    contractTest("deletes points of one project only", async () => {
      const doomed: Scope = { orgId: org, projectId: "doomed" };
      await subject.put([pointAt(doomed, 0), pointAt(doomed, 1)]);
      await subject.remove([{ scope: doomed, id: idOf(0) }]);
      expect(await foundIds([], 5, { scope: doomed })).toEqual(ids([1]));
      expect((await foundIds([], 1))[0]).toBe(idOf(0));
    });

    contractTest("upsert replaces a point's vector and payload", async () => {
      const replaced: Scope = { orgId: org, projectId: "replaced" };
      await subject.put([pointAt(replaced, 0), pointAt(replaced, 1), pointAt(replaced, 2)]);
      await subject.put([{ ...pointAt(replaced, 79, { user_id: "moved-user" }), id: idOf(0) }]);
      expect(await foundIds([], 5, { scope: replaced })).toEqual(ids([1, 2, 0]));
      expect(await foundIds([{ key: "user_id", equals: "near-user" }], 5, { scope: replaced })).toEqual(ids([1, 2]));
      expect(await foundIds([{ key: "user_id", equals: "moved-user" }], 5, { scope: replaced })).toEqual(ids([0]));
    });
  });
}
