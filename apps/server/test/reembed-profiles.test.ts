import { Reconciler, reembedProfilesStep } from "@als/core";
import { LOCAL_SCOPE, profiles } from "@als/db";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../../test/support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const CONTENTS = ["Keeps bees in the garden", "Collects vintage fountain pens", "Speaks fluent Japanese", "Is training for a triathlon"];

/** Profiles as an older model left them: another model id and vectors that mean nothing to the current one. */
async function seedWithOldModel(count: number) {
  const oddVector = Array.from({ length: 384 }, (_, i) => (i === 7 ? 1 : 0));
  await profiles.upsertProfiles(
    svc.db,
    LOCAL_SCOPE,
    Array.from({ length: count }, (_, i) => ({
      profile_id: `old-${String(i).padStart(4, "0")}`,
      user_id: `user-${i % 3}`,
      content: `${CONTENTS[i % CONTENTS.length]} (${i})`,
      status: "CURRENT" as const,
      source: "",
      profile_time_to_live: "infinity",
      expires_at: null,
      tags: [],
      custom_feature: null,
      extractor_name: null,
      generated_from_request_id: null,
      embedding: oddVector,
      embedding_model: "retired-model",
    })),
    svc.clock.now,
  );
}

describe("re-embedding after the embedding model changes", () => {
  test("vectors of a retired model are not compared with the current model's query vectors", async () => {
    await seedWithOldModel(10);
    const response = await svc.call("POST", "/api/search_profiles", { user_id: "user-0", query: "insects honey", search_mode: "vector", threshold: 0 });
    expect(response.body.user_profiles).toEqual([]);
  });

  test("each step is idempotent and the rows are the cursor", async () => {
    const first = await reembedProfilesStep(svc.deps, LOCAL_SCOPE, 4);
    expect(first).toEqual({ reembedded: 4, remaining: 6 });
    const second = await reembedProfilesStep(svc.deps, LOCAL_SCOPE, 4);
    expect(second).toEqual({ reembedded: 4, remaining: 2 });
  });

  test("the in-process reconciler finishes the project and semantic search works again", async () => {
    await seedWithOldModel(300);
    const reconciler = new Reconciler(svc.deps, (error) => {
      throw error;
    });
    reconciler.poke();
    reconciler.poke();
    await reconciler.idle();
    expect(await profiles.countProfilesWithStaleEmbedding(svc.db, LOCAL_SCOPE, svc.deps.embedder.modelId)).toBe(0);
    const response = await svc.call("POST", "/api/search_profiles", { user_id: "user-1", query: "insects honey", search_mode: "vector", top_k: 3 });
    expect(response.body.user_profiles.map((p: any) => p.content.split(" (")[0])).toEqual(Array(3).fill("Keeps bees in the garden"));
  });

  test("a concurrent edit is never overwritten with the vector of its old text", async () => {
    await seedWithOldModel(1);
    const [stale] = await profiles.findProfilesWithStaleEmbedding(svc.db, LOCAL_SCOPE, svc.deps.embedder.modelId, 1);
    await svc.db.query("UPDATE profiles SET content = 'edited meanwhile' WHERE profile_id = $1", [stale!.profile_id]);
    const stored = await profiles.storeProfileEmbeddings(svc.db, LOCAL_SCOPE, svc.deps.embedder.modelId, [
      { ...stale!, embedding: Array(384).fill(0.05) },
    ]);
    expect(stored).toBe(0);
  });
});
