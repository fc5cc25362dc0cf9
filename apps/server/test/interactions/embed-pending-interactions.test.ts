import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { embedPendingInteractions, INTERACTION_EMBEDDING_BATCH } from "@als/core";
import { LOCAL_SCOPE, learning, StorageUnavailableError } from "@als/db";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// The learning step's first part: the vectors of the interactions publishing stored without. A
// batch is stored, and the next one read, while the model embeds the one between.

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/**
 * Holds `user`'s learning lease around `work`, as a learning step does around its embedding: the steps each
 * publish schedules then find the user busy, and only the calls under test embed. The user's first
 * interaction (which makes the user known) is embedded by its step before that.
 */
async function withLease(user: string, work: () => Promise<void>): Promise<void> {
  await publish(user, 1);
  await svc.learningIdle();
  expect(await learning.acquireUserLease(svc.db, LOCAL_SCOPE, user, `test-${user}`, svc.deps.now(), 3600)).toBe(true);
  try {
    await work();
  } finally {
    await learning.releaseUserLease(svc.db, LOCAL_SCOPE, user, `test-${user}`);
  }
}

/** Publishes `count` interactions for `user`, one request of `perRequest` at a time; every seventh is a bare tool call (no text). */
async function publish(user: string, count: number, perRequest = 40): Promise<void> {
  for (let first = 0; first < count; first += perRequest) {
    const items = Array.from({ length: Math.min(perRequest, count - first) }, (_, i) =>
      (first + i) % 7 === 6
        ? { role: "Agent", content: "", tools_used: [{ tool_name: "lookup", tool_data: { input: { n: first + i } } }] }
        : { role: (first + i) % 2 ? "Agent" : "User", content: `${user} turn ${first + i}: about parcel ${(first + i) * 31}` },
    );
    const response = await svc.call("POST", "/api/publish_interaction", { user_id: user, session_id: `${user}-${first}`, interaction_data_list: items });
    expect(response.status).toBe(200);
  }
}

const rowsOf = (user: string) =>
  svc.db.query<{ seq: number; content: string; embedding: string | null; embedding_model: string | null }>(
    "SELECT seq, content, embedding::text AS embedding, embedding_model FROM interactions WHERE user_id = $1 ORDER BY seq",
    [user],
  );

describe("embedding the interactions publishing stored without vectors", () => {
  test("over several batches, every interaction with text gets its own text's vector, once", () =>
    withLease("ida", async () => {
      await publish("ida", 3 * INTERACTION_EMBEDDING_BATCH + 11);
      const pending = (await rowsOf("ida")).filter((row) => row.content !== "" && row.embedding === null);
      expect(pending.length).toBeGreaterThan(2 * INTERACTION_EMBEDDING_BATCH);
      expect(await embedPendingInteractions(svc.deps, LOCAL_SCOPE, "ida")).toBe(pending.length);
      const rows = await rowsOf("ida");
      expect(rows.filter((row) => row.content === "").every((row) => row.embedding === null)).toBe(true);
      const wasPending = new Set(pending.map((row) => row.seq));
      const embedded = rows.filter((row) => wasPending.has(row.seq));
      expect(embedded.every((row) => row.embedding_model === svc.deps.embedder.modelId)).toBe(true);
      // The same batches through the model again: each row holds its own text's vector (as float4).
      for (let first = 0; first < embedded.length; first += INTERACTION_EMBEDDING_BATCH) {
        const batch = embedded.slice(first, first + INTERACTION_EMBEDDING_BATCH);
        const vectors = await svc.deps.embedder.embedDocuments(batch.map((row) => row.content));
        batch.forEach((row, i) => {
          const stored = JSON.parse(row.embedding!) as number[];
          expect(stored.map((x, d) => Math.abs(x - Math.fround(vectors[i]![d]!))).every((gap) => gap < 1e-6)).toBe(true);
        });
      }
      expect(await embedPendingInteractions(svc.deps, LOCAL_SCOPE, "ida")).toBe(0);
    }));

  test("a storage failure while a batch is stored fails the call, keeps the batches stored before it, and the next call embeds the rest", () =>
    withLease("jon", async () => {
      await publish("jon", 3 * INTERACTION_EMBEDDING_BATCH + 11);
      const before = (await rowsOf("jon")).filter((row) => row.embedding !== null).length;
      let stores = 0;
      const failing = {
        ...svc.db,
        query: ((text: string, params?: readonly unknown[]) => {
          if (text.startsWith("UPDATE interactions i SET embedding") && ++stores === 2) {
            return Promise.reject(new StorageUnavailableError(new Error("connection reset"), "connection"));
          }
          return svc.db.query(text, params);
        }) as TestService["db"]["query"],
      };
      const failed = await embedPendingInteractions({ ...svc.deps, db: failing }, LOCAL_SCOPE, "jon").catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(StorageUnavailableError);
      const stored = (await rowsOf("jon")).filter((row) => row.embedding !== null).length;
      expect(stored).toBe(before + INTERACTION_EMBEDDING_BATCH);
      const withText = (await rowsOf("jon")).filter((row) => row.content !== "").length;
      expect(await embedPendingInteractions(svc.deps, LOCAL_SCOPE, "jon")).toBe(withText - stored);
      expect((await rowsOf("jon")).filter((row) => row.content !== "" && row.embedding === null)).toEqual([]);
    }));
});
