import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let t0: number;

beforeAll(async () => {
  svc = await startTestService();
  t0 = svc.clock.now;
  const profiles = [
    { profile_id: "pet", content: "Owns a golden retriever named Biscuit", tags: ["pets"], source: "chat", custom_feature: "household" },
    { profile_id: "diet", content: "Is allergic to peanuts and shellfish", tags: ["health", "food"], source: "intake" },
    { profile_id: "job", content: "Works as a backend engineer writing Go", tags: ["work"], source: "chat" },
    { profile_id: "sport", content: "Runs marathons on weekends", tags: ["hobby"] },
    { profile_id: "lang", content: "Prefers answers in Spanish", tags: ["style"], status: "ARCHIVED" },
  ];
  for (const profile of profiles) {
    await svc.client.profiles.add({ user_profiles: [{ user_id: "fay", ...profile }] });
    svc.clock.now += 60;
  }
  await svc.client.profiles.add({ user_profiles: [{ user_id: "gus", profile_id: "gus-pet", content: "Has a dog and two cats" }] });
});
afterAll(() => svc.close());

const search = (input: Omit<ClientInput<"profiles", "search">, "user_id">) => svc.client.profiles.search({ user_id: "fay", ...input });
const ids = (result: { user_profiles: { profile_id: string }[] }) => result.user_profiles.map((p) => p.profile_id);

describe("search_profiles", () => {
  test("a semantic query finds a profile that shares no word with it", async () => {
    for (const mode of ["vector", "hybrid"] as const) {
      expect(ids(await search({ query: "what kind of animal lives at home", search_mode: mode, top_k: 1 }))).toEqual(["pet"]);
    }
  });
  test("fts matches words (stemmed) and finds nothing without a shared word", async () => {
    expect(ids(await search({ query: "marathon running", search_mode: "fts" }))).toEqual(["sport"]);
    expect(ids(await search({ query: "canine companion", search_mode: "fts" }))).toEqual([]);
  });
  test("hybrid is the default and fuses both arms", async () => {
    expect(ids(await search({ query: "food allergies peanut" }))[0]).toBe("diet");
  });
  test("threshold bounds the vector arm", async () => {
    expect(ids(await search({ query: "dog", search_mode: "vector", threshold: 0.99 }))).toEqual([]);
    expect(ids(await search({ query: "dog", search_mode: "vector", threshold: 0 })).length).toBe(4);
  });
  test("filters: tags any-match, source, custom_feature, time range, status, user", async () => {
    expect(ids(await search({ query: "food", tags: ["pets", "health"], search_mode: "vector", threshold: 0 })).sort()).toEqual(["diet", "pet"]);
    expect(ids(await search({ query: "engineer", source: "chat", search_mode: "vector", threshold: 0 })).sort()).toEqual(["job", "pet"]);
    expect(ids(await search({ query: "dog", custom_feature: "household" }))).toEqual(["pet"]);
    expect(ids(await search({ query: "anything at all", search_mode: "vector", threshold: 0, start_time: t0 + 60, end_time: t0 + 120 })).sort()).toEqual([
      "diet",
      "job",
    ]);
    expect(ids(await search({ query: "language spanish", status_filter: ["archived"] }))).toEqual(["lang"]);
    expect(ids(await search({ query: "language spanish" }))).not.toContain("lang");
    expect(ids(await search({ query: "dog cats", threshold: 0 }))).not.toContain("gus-pet");
  });
  test("top_k caps results; without a query the newest profiles come back", async () => {
    expect(ids(await search({ query: "person", top_k: 2, threshold: 0, search_mode: "vector" })).length).toBe(2);
    expect(ids(await search({ top_k: 2 }))).toEqual(["sport", "job"]);
  });
  test("enable_reformulation is refused clearly while no LLM is available", async () => {
    await expect(search({ query: "x", enable_reformulation: true })).rejects.toMatchObject({
      status: 501,
      code: "not_implemented",
      message: expect.stringContaining("enable_reformulation"),
    });
  });
  test.each([
    [{ user_id: undefined, query: "x" }, "user_id"],
    [{ query: "x", threshold: 1.5 }, "threshold"],
    [{ query: "x", threshold: -0.1 }, "threshold"],
    [{ query: "x", top_k: 0 }, "top_k"],
    [{ query: "x", top_k: 101 }, "top_k"],
    [{ query: "x", search_mode: "semantic" }, "search_mode"],
    [{ query: "x", tags: "pets" }, "tags"],
    [{ query: "x", start_time: 5, end_time: 1 }, "end_time"],
    [{ query: "x", status_filter: [] }, "status_filter"],
  ])("422 for %j names %s", async (body, field) => {
    const response = await svc.call("POST", "/api/search_profiles", { user_id: "fay", ...body });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
  });
});
