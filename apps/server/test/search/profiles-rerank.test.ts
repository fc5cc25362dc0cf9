import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalReranker } from "@als/ai";
import { sharedComputePool } from "@als/test-support/compute.ts";
import { testMode } from "@als/test-support/database.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { tinyReranker } from "@als/test-support/tiny-cross-encoder.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

// The tiny cross-encoder scores a pair by how many document tokens also occur in the query, so
// for the query below: retriever 4 (golden, retrieve, ##r, dog), retired 3, walker 2 (walks,
// dog), nap 1 (golden), peanuts and jazz 0.
const QUERY = "golden retriever dog walks";
const PROFILES = [
  { profile_id: "peanuts", content: "Allergic to peanuts" },
  { profile_id: "walker", content: "Walks a dog every morning" },
  { profile_id: "jazz", content: "Enjoys jazz music" },
  { profile_id: "retriever", content: "Owns a golden retriever dog" },
  { profile_id: "nap", content: "Naps in the golden afternoon sun" },
  { profile_id: "retired", content: "Retired golden retriever", status: "ARCHIVED" },
  // Would outscore every other profile while it lives.
  { profile_id: "short-lived", content: "golden retriever dog walks daily", profile_time_to_live: "one_day" as const },
];

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ reranker: await tinyReranker() });
  await svc.client.profiles.add({ user_profiles: PROFILES.map((profile) => ({ user_id: "ria", ...profile })) });
  await svc.client.profiles.add({
    user_profiles: [{ user_id: "sam", profile_id: "sams-dog", content: "Owns a golden retriever dog too" }],
  });
});
afterAll(() => svc.close());

const rerank = (input: { profile_ids: string[]; query?: string; top_k?: number }) => svc.client.profiles.rerank({ user_id: "ria", query: QUERY, ...input });
const ids = (result: { user_profiles: { profile_id: string }[] }) => result.user_profiles.map((p) => p.profile_id);
const LIVING = PROFILES.map((p) => p.profile_id).filter((id) => id !== "short-lived");

describe("rerank_user_profiles", () => {
  test("orders the given profiles by descending cross-encoder score, whole profiles in the search response shape", async () => {
    const result = await rerank({ profile_ids: LIVING });
    expect(result.success).toBe(true);
    expect(ids(result)).toEqual(["retriever", "retired", "walker", "nap", "peanuts", "jazz"]);
    expect(result.user_profiles[0]).toMatchObject({ user_id: "ria", content: "Owns a golden retriever dog", status: null });
    expect(typeof result.msg).toBe("string");
  });

  test("the query decides the order: the model reads both sides of each pair", async () => {
    expect(ids(await rerank({ query: "allergic to peanuts", profile_ids: LIVING, top_k: 1 }))).toEqual(["peanuts"]);
    expect(ids(await rerank({ query: "jazz music", profile_ids: LIVING, top_k: 1 }))).toEqual(["jazz"]);
  });

  test("equal scores keep the order of profile_ids", async () => {
    expect(ids(await rerank({ profile_ids: ["peanuts", "jazz"] }))).toEqual(["peanuts", "jazz"]);
    expect(ids(await rerank({ profile_ids: ["jazz", "peanuts"] }))).toEqual(["jazz", "peanuts"]);
  });

  test("top_k caps the result at the best profiles; it defaults to 10", async () => {
    expect(ids(await rerank({ profile_ids: LIVING, top_k: 2 }))).toEqual(["retriever", "retired"]);
    const many = Array.from({ length: 12 }, (_, index) => ({ user_id: "ria", profile_id: `many-${index}`, content: `golden note ${index}` }));
    await svc.client.profiles.add({ user_profiles: many });
    expect(ids(await rerank({ profile_ids: many.map((p) => p.profile_id) }))).toHaveLength(10);
  });

  test("unknown ids and other users' ids are dropped silently; duplicates count once", async () => {
    expect(ids(await rerank({ profile_ids: ["no-such-profile", "sams-dog", "walker", "walker", "nap"] }))).toEqual(["walker", "nap"]);
    expect(ids(await rerank({ profile_ids: ["sams-dog", "no-such-profile"] }))).toEqual([]);
  });

  test("an empty profile_ids list reranks nothing", async () => {
    expect(await rerank({ profile_ids: [] })).toMatchObject({ success: true, user_profiles: [] });
  });

  test("tRPC serves it as profiles.rerank", async () => {
    const response = await svc.app.handle(
      new Request("http://localhost/trpc/profiles.rerank", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_id: "ria", query: QUERY, profile_ids: ["nap", "retriever"] }),
      }),
    );
    const body = (await response.json()) as any;
    expect(body.result.data.user_profiles.map((p: { profile_id: string }) => p.profile_id)).toEqual(["retriever", "nap"]);
  });

  test.each([
    ["no user_id", { user_id: undefined }, "user_id"],
    ["an empty user_id", { user_id: "" }, "user_id"],
    ["a user_id of 256 characters", { user_id: "u".repeat(256) }, "user_id"],
    ["no query", { query: undefined }, "query"],
    ["a blank query", { query: "   " }, "query"],
    ["no profile_ids", { profile_ids: undefined }, "profile_ids"],
    ["profile_ids as a string", { profile_ids: "walker" }, "profile_ids"],
    ["a number among profile_ids", { profile_ids: [7] }, "profile_ids[0]"],
    ["1001 profile_ids", { profile_ids: Array.from({ length: 1001 }, (_, index) => `id-${index}`) }, "profile_ids"],
    ["top_k 0", { top_k: 0 }, "top_k"],
    ["top_k 101", { top_k: 101 }, "top_k"],
    ["top_k 2.5", { top_k: 2.5 }, "top_k"],
  ])("422 for %s names the field", async (_, body, field) => {
    const response = await svc.call("POST", "/api/rerank_user_profiles", { user_id: "ria", query: QUERY, profile_ids: ["walker"], ...body });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
  });

  test("503 saying what to put where while no reranking model is installed, whatever the ids", async () => {
    const missingDir = join(tmpdir(), "no-cross-encoder-here");
    const withoutModel = await createLocalReranker({ modelDir: missingDir, compute: sharedComputePool() });
    const app = buildApp({ deps: { ...svc.deps, reranker: withoutModel }, log: createLogger("error"), mode: testMode });
    for (const profile_ids of [["walker"], []]) {
      const response = await app.handle(
        new Request("http://localhost/api/rerank_user_profiles", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ user_id: "ria", query: QUERY, profile_ids }),
        }),
      );
      expect(response.status).toBe(503);
      const body = (await response.json()) as any;
      expect(body.error).toBe("reranker_unavailable");
      expect(body.detail).toContain(`No reranking model is installed in ${missingDir} (model.onnx and tokenizer.json missing)`);
      expect(body.detail).toContain("RERANK_MODEL_DIR");
      expect(body.detail).toContain("scripts/install-reranker.sh");
    }
  });

  test("503 when the process was composed without a reranker", async () => {
    const unconfigured = await startTestService();
    try {
      await expect(unconfigured.client.profiles.rerank({ user_id: "ria", query: QUERY, profile_ids: ["walker"] })).rejects.toMatchObject({
        status: 503,
        code: "reranker_unavailable",
        message: expect.stringContaining("RERANK_MODEL_DIR"),
      });
    } finally {
      await unconfigured.close();
    }
  });

  // Last: it moves the clock past the short-lived profile's day.
  test("a profile resolves while it lives, in any status; once expired it is dropped", async () => {
    const candidates = ["walker", "retired", "short-lived"];
    expect(ids(await rerank({ profile_ids: candidates }))).toEqual(["short-lived", "retired", "walker"]);
    svc.clock.now += 2 * 24 * 3600;
    expect(ids(await rerank({ profile_ids: candidates }))).toEqual(["retired", "walker"]);
  });
});
