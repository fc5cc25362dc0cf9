import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService | undefined;
beforeEach(async () => {
  await svc?.close();
  svc = await startTestService();
  await svc.client.profiles.add({
    user_profiles: [
      { user_id: "hana", profile_id: "h1", content: "Hana is learning the violin" },
      { user_id: "hana", profile_id: "h2", content: "Hana is vegan" },
      { user_id: "ivan", profile_id: "i1", content: "Ivan is learning the cello" },
    ],
  });
});
afterAll(() => svc?.close());

const remaining = async () => (await svc!.client.profiles.getAll()).user_profiles.map((p) => p.profile_id).sort();

describe("delete_profile", () => {
  test("by profile_id, only within the user", async () => {
    const wrongUser = await svc!.client.profiles.delete({ user_id: "ivan", profile_id: "h1" });
    expect(wrongUser).toMatchObject({ success: true, deleted_count: 0 });
    const deleted = await svc!.client.profiles.delete({ user_id: "hana", profile_id: "h1" });
    expect(deleted).toMatchObject({ success: true, deleted_count: 1, profile_ids: ["h1"] });
    expect(await remaining()).toEqual(["h2", "i1"]);
  });
  test("by search_query removes the single best match of that user", async () => {
    const deleted = await svc!.client.profiles.delete({ user_id: "hana", search_query: "plays a string instrument" });
    expect(deleted.profile_ids).toEqual(["h1"]);
    expect(await remaining()).toEqual(["h2", "i1"]);
  });
  test("422 without profile_id or search_query, and without user_id", async () => {
    for (const body of [{ user_id: "hana" }, { user_id: "hana", profile_id: "", search_query: "  " }, { profile_id: "h1" }]) {
      const response = await svc!.call("DELETE", "/api/delete_profile", body);
      expect(response.status).toBe(422);
    }
    expect((await svc!.call("DELETE", "/api/delete_profile", { user_id: "hana" })).body.message).toContain("profile_id");
    expect(await remaining()).toEqual(["h1", "h2", "i1"]);
  });
});

describe("delete_profiles_by_ids and delete_all_profiles", () => {
  test("deletes the listed ids and counts them", async () => {
    const deleted = await svc!.client.profiles.deleteByIds({ profile_ids: ["h2", "i1", "missing"] });
    expect(deleted).toEqual({ success: true, deleted_count: 2, message: "Deleted 2 item(s)" });
    expect(await remaining()).toEqual(["h1"]);
  });
  test("422 for an empty or missing list", async () => {
    for (const body of [{ profile_ids: [] }, {}, { profile_ids: [""] }]) {
      const response = await svc!.call("DELETE", "/api/delete_profiles_by_ids", body);
      expect(response.status).toBe(422);
      expect(response.body.message).toContain("profile_ids");
    }
  });
  test("delete_all_profiles removes everything in the project", async () => {
    const deleted = await svc!.client.profiles.deleteAll();
    expect(deleted).toMatchObject({ success: true, deleted_count: 3 });
    expect(await remaining()).toEqual([]);
  });
  test("delete_all_profiles rejects a body with fields", async () => {
    const response = await svc!.call("DELETE", "/api/delete_all_profiles", { user_id: "hana" });
    expect(response.status).toBe(422);
    expect(await remaining()).toEqual(["h1", "h2", "i1"]);
  });
});
