import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function expect422(body: unknown, field: string) {
  const before = await svc.client.profiles.getAll({ limit: 1000 });
  const response = await svc.call("POST", "/api/add_user_profile", body);
  expect(response.status).toBe(422);
  expect(response.body.error).toBe("validation_error");
  expect(response.body.message).toContain(field);
  const after = await svc.client.profiles.getAll({ limit: 1000 });
  expect(after.user_profiles.length).toBe(before.user_profiles.length);
  return response.body;
}

describe("add_user_profile", () => {
  test("only user_id and content are required; a UUIDv4 profile_id is generated", async () => {
    const added = await svc.client.profiles.add({ user_profiles: [{ user_id: "alice", content: "Alice is vegetarian" }] });
    expect(added).toMatchObject({ success: true, added_count: 1 });
    expect(added.profile_ids[0]).toMatch(UUID_V4);
    const read = await svc.client.profiles.get({ user_id: "alice" });
    expect(read.user_profiles).toHaveLength(1);
    expect(read.user_profiles[0]).toMatchObject({
      profile_id: added.profile_ids[0],
      user_id: "alice",
      content: "Alice is vegetarian",
      status: null,
      source: "",
      profile_time_to_live: "infinity",
      expiration_timestamp: 4102444800,
      tags: [],
      created_at: svc.clock.now,
      last_modified_timestamp: svc.clock.now,
    });
    expect((read.user_profiles[0] as Record<string, unknown>).embedding).toBeUndefined();
  });

  test("keeps a given profile_id and replaces the profile on a second add", async () => {
    await svc.client.profiles.add({ user_profiles: [{ user_id: "bob", profile_id: "bob-city", content: "Bob lives in Paris" }] });
    svc.clock.now += 10;
    const again = await svc.client.profiles.add({
      user_profiles: [{ user_id: "bob", profile_id: "bob-city", content: "Bob lives in Lyon", tags: ["home"], source: "crm.sync", status: "pending" }],
    });
    expect(again.profile_ids).toEqual(["bob-city"]);
    const all = await svc.client.profiles.get({ user_id: "bob", status_filter: ["PENDING"] });
    expect(all.user_profiles).toHaveLength(1);
    expect(all.user_profiles[0]).toMatchObject({ content: "Bob lives in Lyon", tags: ["home"], source: "crm.sync", status: "pending" });
    expect(all.user_profiles[0]!.last_modified_timestamp).toBe(svc.clock.now);
    expect(all.user_profiles[0]!.created_at).toBe(svc.clock.now - 10);
  });

  test("profile_time_to_live becomes an expiry that reads honour", async () => {
    await svc.client.profiles.add({
      user_profiles: [{ user_id: "carol", content: "Carol is travelling this week", profile_time_to_live: "one_day" }],
    });
    const [profile] = (await svc.client.profiles.get({ user_id: "carol" })).user_profiles;
    expect(profile!.expiration_timestamp).toBe(svc.clock.now + 86400);
    svc.clock.now += 86401;
    expect((await svc.client.profiles.get({ user_id: "carol" })).user_profiles).toEqual([]);
    expect((await svc.client.profiles.search({ user_id: "carol", query: "travel" })).user_profiles).toEqual([]);
  });

  test("a batch of many users is stored whole, in order", async () => {
    const batch = Array.from({ length: 40 }, (_, i) => ({ user_id: `batch-${i % 4}`, content: `fact number ${i}` }));
    const added = await svc.client.profiles.add({ user_profiles: batch });
    expect(added.added_count).toBe(40);
    expect(new Set(added.profile_ids).size).toBe(40);
  });

  test("concurrent adds lose nothing and duplicate nothing", async () => {
    const added = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        svc.client.profiles.add({
          user_profiles: [
            { user_id: "concurrent", content: `parallel fact ${i}` },
            { user_id: "concurrent", profile_id: "shared-id", content: `shared fact version ${i}` },
          ],
        }),
      ),
    );
    expect(added).toHaveLength(24);
    const stored = await svc.client.profiles.get({ user_id: "concurrent", top_k: 1000 });
    expect(stored.user_profiles).toHaveLength(25);
    expect(stored.user_profiles.filter((p) => p.profile_id === "shared-id")).toHaveLength(1);
  });

  describe("validation (422 naming the field, nothing stored)", () => {
    test("user_profiles missing", () => expect422({}, "user_profiles"));
    test("user_profiles empty", () => expect422({ user_profiles: [] }, "user_profiles"));
    test("user_id missing names the list index", async () => {
      const body = await expect422({ user_profiles: [{ user_id: "ok", content: "fine" }, { content: "no user" }] }, "user_profiles[1].user_id");
      expect(body.detail[0].loc).toEqual(["body", "user_profiles", 1, "user_id"]);
    });
    test("content missing", () => expect422({ user_profiles: [{ user_id: "u" }] }, "user_profiles[0].content"));
    test("content blank", () => expect422({ user_profiles: [{ user_id: "u", content: "   " }] }, "user_profiles[0].content"));
    test("user_id empty", () => expect422({ user_profiles: [{ user_id: "", content: "x" }] }, "user_profiles[0].user_id"));
    test("user_id over 255 characters", () => expect422({ user_profiles: [{ user_id: "u".repeat(256), content: "x" }] }, "user_profiles[0].user_id"));
    test("status outside the enumeration", () => expect422({ user_profiles: [{ user_id: "u", content: "x", status: "done" }] }, "user_profiles[0].status"));
    test("source breaking the pattern", () => expect422({ user_profiles: [{ user_id: "u", content: "x", source: "Has Spaces" }] }, "user_profiles[0].source"));
    test("unknown time to live", () =>
      expect422({ user_profiles: [{ user_id: "u", content: "x", profile_time_to_live: "forever" }] }, "user_profiles[0].profile_time_to_live"));
    test("tags not a list of strings", () => expect422({ user_profiles: [{ user_id: "u", content: "x", tags: "food" }] }, "user_profiles[0].tags"));
    test("malformed JSON", async () => {
      const response = await svc.call("POST", "/api/add_user_profile", "{not json");
      expect(response.status).toBe(422);
      expect(response.body.message).toContain("not valid JSON");
    });
  });
});
