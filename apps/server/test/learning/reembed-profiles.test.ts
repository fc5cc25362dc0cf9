import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Reconciler, reembedStaleRowsStep } from "@als/core";
import { LOCAL_SCOPE, staleEmbeddings } from "@als/db";
import { seedProfilesOfRetiredModel } from "@als/test-support/retired-model-rows.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe("re-embedding after the embedding model changes", () => {
  test("vectors of a retired model are not compared with the current model's query vectors", async () => {
    await seedProfilesOfRetiredModel(svc.db, LOCAL_SCOPE, 10);
    const response = await svc.call("POST", "/api/search_profiles", { user_id: "user-0", query: "insects honey", search_mode: "vector", threshold: 0 });
    expect(response.body.user_profiles).toEqual([]);
  });

  test("each step is idempotent and the rows are the cursor", async () => {
    const first = await reembedStaleRowsStep(svc.deps, LOCAL_SCOPE, 4);
    expect(first).toEqual({ reembedded: 4, remaining: 6 });
    const second = await reembedStaleRowsStep(svc.deps, LOCAL_SCOPE, 4);
    expect(second).toEqual({ reembedded: 4, remaining: 2 });
  });

  test("the in-process reconciler finishes the project and semantic search works again", async () => {
    await seedProfilesOfRetiredModel(svc.db, LOCAL_SCOPE, 300);
    const reconciler = new Reconciler(svc.deps, (error) => {
      throw error;
    });
    reconciler.poke();
    reconciler.poke();
    await reconciler.idle();
    // Its wake-up timer would otherwise poke on after this file closed the database, failing a later file's test.
    reconciler.stop();
    expect(await staleEmbeddings.countRowsWithStaleEmbedding(svc.db, LOCAL_SCOPE, svc.deps.embedder.modelId)).toBe(0);
    const response = await svc.call("POST", "/api/search_profiles", { user_id: "user-1", query: "insects honey", search_mode: "vector", top_k: 3 });
    expect(response.body.user_profiles.map((p: any) => p.content.split(" (")[0])).toEqual(Array(3).fill("Keeps bees in the garden"));
  });

  test("a concurrent edit is never overwritten with the vector of its old text", async () => {
    await seedProfilesOfRetiredModel(svc.db, LOCAL_SCOPE, 1);
    const modelId = svc.deps.embedder.modelId;
    const [stale] = await staleEmbeddings.findRowsWithStaleEmbedding(svc.db, LOCAL_SCOPE, "profiles", modelId, 1);
    await svc.db.query("UPDATE profiles SET content = 'edited meanwhile' WHERE profile_id = $1", [stale!.row_id]);
    const stored = await staleEmbeddings.storeEmbeddings(svc.db, LOCAL_SCOPE, "profiles", modelId, [{ ...stale!, embedding: Array(384).fill(0.05) }]);
    expect(stored).toBe(0);
  });
});
