import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let t0: number;

beforeAll(async () => {
  svc = await startTestService();
  t0 = svc.clock.now;
  const add = async (user_profiles: ClientInput<"profiles", "add">["user_profiles"]) => {
    await svc.client.profiles.add({ user_profiles });
    svc.clock.now += 100;
  };
  await add([{ user_id: "dana", profile_id: "d1", content: "Dana drinks oat milk", tags: ["food"], source: "chat" }]);
  await add([{ user_id: "dana", profile_id: "d2", content: "Dana works as a NURSE", tags: ["work"], source: "crm" }]);
  await add([{ user_id: "dana", profile_id: "d3", content: "Dana used to live in Oslo", status: "archived" }]);
  await add([{ user_id: "dana", profile_id: "d4", content: "Dana may move to Bergen", status: "PENDING", profile_time_to_live: "one_year" }]);
  await add([{ user_id: "erik", profile_id: "e1", content: "Erik plays chess", tags: ["hobby", "food"] }]);
});
afterAll(() => svc.close());

const ids = (result: { user_profiles: { profile_id: string }[] }) => result.user_profiles.map((p) => p.profile_id);

describe("get_profiles", () => {
  const get = (input: ClientInput<"profiles", "get">) => svc.client.profiles.get(input);

  test("returns the user's CURRENT profiles newest first by default", async () => {
    const result = await get({ user_id: "dana" });
    expect(result.success).toBe(true);
    expect(ids(result)).toEqual(["d2", "d1"]);
  });
  test("status_filter accepts any case and several statuses", async () => {
    expect(ids(await get({ user_id: "dana", status_filter: ["archived", "Pending"] }))).toEqual(["d4", "d3"]);
  });
  test("filters: profile_id, query (case-insensitive), source, tags any-match, time to live, time range", async () => {
    expect(ids(await get({ user_id: "dana", profile_id: "d1" }))).toEqual(["d1"]);
    expect(ids(await get({ user_id: "dana", query: "nurse" }))).toEqual(["d2"]);
    expect(ids(await get({ user_id: "dana", source: "chat" }))).toEqual(["d1"]);
    expect(ids(await get({ user_id: "dana", tags: ["work", "nothing"] }))).toEqual(["d2"]);
    expect(ids(await get({ user_id: "dana", status_filter: ["PENDING"], profile_time_to_live: "one_year" }))).toEqual(["d4"]);
    expect(ids(await get({ user_id: "dana", start_time: t0 + 50, end_time: t0 + 150 }))).toEqual(["d2"]);
  });
  test("top_k caps the result (default 30)", async () => {
    expect(ids(await get({ user_id: "dana", top_k: 1 }))).toEqual(["d2"]);
  });
  test("another user's profiles never leak", async () => {
    expect(ids(await get({ user_id: "erik" }))).toEqual(["e1"]);
  });
  test.each([
    [{}, "user_id"],
    [{ user_id: "" }, "user_id"],
    [{ user_id: "dana", top_k: 0 }, "top_k"],
    [{ user_id: "dana", top_k: "ten" }, "top_k"],
    [{ user_id: "dana", status_filter: ["DONE"] }, "status_filter[0]"],
    [{ user_id: "dana", start_time: 200, end_time: 100 }, "end_time"],
    [{ user_id: "dana", tags: [1] }, "tags[0]"],
    [{ user_id: "dana", source: "UPPER" }, "source"],
  ])("422 for %j names %s", async (body, field) => {
    const response = await svc.call("POST", "/api/get_profiles", body);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
  });
});

describe("get_all_profiles", () => {
  /** The raw query string, for the formats the typed client does not write (a comma list) and the 422s. */
  const getAll = (query: string) => svc.call("GET", `/api/get_all_profiles${query}`);

  test("unset status_filter returns every status of every user", async () => {
    expect(ids(await svc.client.profiles.getAll()).sort()).toEqual(["d1", "d2", "d3", "d4", "e1"]);
  });
  test("status_filter as a comma list or repeated parameter", async () => {
    expect(ids(await svc.client.profiles.getAll({ status_filter: ["current"] })).sort()).toEqual(["d1", "d2", "e1"]);
    expect(ids((await getAll("?status_filter=pending,archived")).body).sort()).toEqual(["d3", "d4"]);
    expect(ids(await svc.client.profiles.getAll({ status_filter: ["pending", "archived"] })).sort()).toEqual(["d3", "d4"]);
  });
  test("filters apply before the limit", async () => {
    expect(ids(await svc.client.profiles.getAll({ limit: 1, user_id: "dana", source: "chat" }))).toEqual(["d1"]);
    expect(ids(await svc.client.profiles.getAll({ limit: 2, query: "dana" }))).toEqual(["d4", "d3"]);
  });
  test("date_field chooses the timestamp the time range reads", async () => {
    svc.clock.now += 1000;
    await svc.client.profiles.add({ user_profiles: [{ user_id: "dana", profile_id: "d1", content: "Dana drinks soy milk now" }] });
    const window = { start_time: t0 - 1, end_time: t0 + 1 };
    expect(ids(await svc.client.profiles.getAll({ ...window, date_field: "created_at" }))).toEqual(["d1"]);
    expect(ids(await svc.client.profiles.getAll(window))).toEqual([]);
  });
  test.each([
    ["?limit=abc", "limit"],
    ["?limit=0", "limit"],
    ["?date_field=updated", "date_field"],
    ["?status_filter=gone", "status_filter[0]"],
    ["?start_time=10&end_time=5", "end_time"],
    ["?profile_time_to_live=forever", "profile_time_to_live"],
  ])("422 for %s names %s", async (query, field) => {
    const response = await getAll(query);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
    expect(response.body.detail[0].loc[0]).toBe("query");
  });
});

describe("storage_stats and profile_change_log", () => {
  test("storage_stats counts every status of one user", async () => {
    const stats = await svc.client.profiles.storageStats({ user_id: "dana" });
    expect(stats).toMatchObject({ success: true, profile_count: 4, playbook_count: 0 });
    expect(Date.parse(stats.oldest_profile_modified!) / 1000).toBe(t0 + 100);
    expect(stats.newest_profile_modified).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
  test("storage_stats needs user_id", async () => {
    const response = await svc.call("GET", "/api/storage_stats");
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("user_id");
  });
  test("profile_change_log lists additions and removals newest first", async () => {
    await svc.client.profiles.delete({ user_id: "erik", profile_id: "e1" });
    const [latest, ...older] = (await svc.client.profiles.changeLog()).profile_change_logs;
    expect(latest).toMatchObject({ user_id: "erik", added_profiles: [] });
    expect(latest!.removed_profiles.map((p) => p.profile_id)).toEqual(["e1"]);
    expect(older.some((entry) => entry.added_profiles.some((p) => p.profile_id === "d2"))).toBe(true);
    const erikOnly = await svc.client.profiles.changeLog({ user_id: "erik" });
    expect(erikOnly.profile_change_logs.every((entry) => entry.user_id === "erik")).toBe(true);
  });
});
