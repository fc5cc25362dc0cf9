import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { addUserPlaybooks, expectRejected } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const get = (input: ClientInput<"userPlaybooks", "get">) => svc.client.userPlaybooks.get(input);
const ids = (result: { user_playbooks: { user_playbook_id: number }[] }) => result.user_playbooks.map((p) => p.user_playbook_id);
const getOne = async (id: number) => (await get({ user_playbook_id: id })).user_playbooks[0];

describe("add_user_playbook", () => {
  test("user_id and content suffice; defaults are filled and ids come back in input order", async () => {
    const added = await svc.client.userPlaybooks.add({
      user_playbooks: [
        { user_id: "ada", content: "Answer with a short summary first" },
        { user_id: "ada", trigger: "the user pastes a stack trace" },
      ],
    });
    expect(added).toMatchObject({ success: true, added_count: 2 });
    const [first, second] = added.user_playbook_ids as [number, number];
    expect(second).toBeGreaterThan(first);
    expect(await getOne(first)).toEqual({
      user_playbook_id: first,
      user_id: "ada",
      request_id: "",
      agent_version: "agent-v0",
      playbook_name: "",
      trigger: "",
      content: "Answer with a short summary first",
      rationale: "",
      structured_data: { trigger: "", rationale: "" },
      tags: [],
      status: null,
      source: "",
      created_at: svc.clock.now,
      last_modified_timestamp: svc.clock.now,
    });
    expect(await getOne(second)).toMatchObject({ trigger: "the user pastes a stack trace", content: "" });
  });

  test("every field is stored as given; status is accepted in any letter case", async () => {
    const [id] = await addUserPlaybooks(svc, [
      {
        user_id: "ada",
        request_id: "req-7",
        agent_version: "support-v2",
        playbook_name: "tone",
        trigger: "the user is upset",
        content: "Acknowledge the problem before proposing a fix",
        rationale: "Upset users ignore solutions until they feel heard",
        tags: ["tone", "support"],
        status: "pending",
        source: "chat.web",
      },
    ]);
    expect(await getOne(id!)).toMatchObject({
      request_id: "req-7",
      agent_version: "support-v2",
      playbook_name: "tone",
      rationale: "Upset users ignore solutions until they feel heard",
      tags: ["tone", "support"],
      status: "pending",
      source: "chat.web",
    });
  });

  test("parallel adds lose nothing and duplicate no id", async () => {
    const added = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        svc.client.userPlaybooks.add({
          user_playbooks: [
            { user_id: "parallel", content: `parallel guidance ${i}a` },
            { user_id: "parallel", content: `parallel guidance ${i}b` },
          ],
        }),
      ),
    );
    expect(added).toHaveLength(16);
    const returned = added.flatMap((result) => result.user_playbook_ids);
    expect(new Set(returned).size).toBe(32);
    const stored = await get({ user_id: "parallel" });
    expect(ids(stored).sort()).toEqual(returned.sort());
  });

  describe("validation (422 naming the field or list index, nothing stored)", () => {
    const add = (body: unknown, field: string) => expectRejected(svc, "POST", "/api/add_user_playbook", body, field);
    test("user_playbooks missing", () => add({}, "user_playbooks"));
    test("user_playbooks empty", () => add({ user_playbooks: [] }, "user_playbooks"));
    test("neither content nor trigger names the list index", async () => {
      const body = await add(
        {
          user_playbooks: [
            { user_id: "u", content: "fine" },
            { user_id: "u", rationale: "why" },
          ],
        },
        "user_playbooks[1].content",
      );
      expect(body.message).toContain("content or trigger");
      expect(body.detail[0].loc).toEqual(["body", "user_playbooks", 1, "content"]);
    });
    test("blank content and trigger", () => add({ user_playbooks: [{ user_id: "u", content: "  ", trigger: "\n" }] }, "user_playbooks[0].content"));
    test("user_id missing", () => add({ user_playbooks: [{ content: "x" }] }, "user_playbooks[0].user_id"));
    test("user_id over 255 characters", () => add({ user_playbooks: [{ user_id: "u".repeat(256), content: "x" }] }, "user_playbooks[0].user_id"));
    test("request_id over 255 characters", () =>
      add({ user_playbooks: [{ user_id: "u", content: "x", request_id: "r".repeat(256) }] }, "user_playbooks[0].request_id"));
    test("agent_version empty", () => add({ user_playbooks: [{ user_id: "u", content: "x", agent_version: "" }] }, "user_playbooks[0].agent_version"));
    test("status outside the enumeration", () => add({ user_playbooks: [{ user_id: "u", content: "x", status: "APPROVED" }] }, "user_playbooks[0].status"));
    test("source breaking the pattern", () => add({ user_playbooks: [{ user_id: "u", content: "x", source: "Web Chat" }] }, "user_playbooks[0].source"));
    test("tags not a list of strings", () => add({ user_playbooks: [{ user_id: "u", content: "x", tags: [3] }] }, "user_playbooks[0].tags[0]"));
    test("malformed JSON", () => add("{nope", "not valid JSON"));
  });
});

describe("get_user_playbooks", () => {
  let t0: number;
  let [p1, p2, p3, p4, p5] = [0, 0, 0, 0, 0];
  beforeAll(async () => {
    svc.clock.now += 1000;
    t0 = svc.clock.now;
    const addAt = async (playbook: object) => {
      const [id] = await addUserPlaybooks(svc, [playbook]);
      svc.clock.now += 100;
      return id!;
    };
    p1 = await addAt({ user_id: "bea", request_id: "r1", playbook_name: "format", trigger: "long answers", content: "Use BULLET points", tags: ["format"] });
    p2 = await addAt({
      user_id: "bea",
      request_id: "r2",
      agent_version: "v2",
      content: "Cite the docs page",
      rationale: "Bea checks sources",
      tags: ["sources"],
    });
    p3 = await addAt({ user_id: "bea", content: "Prefer metric units", status: "archived", tags: ["units", "format"] });
    p4 = await addAt({ user_id: "cal", content: "Greet Cal by name", status: "PENDING", source: "crm" });
    p5 = await addAt({ user_id: "cal", trigger: "Cal asks about pricing", content: "Link the pricing page", playbook_name: "format" });
  });

  test("every status unless filtered, newest first", async () => {
    const result = await get({ user_id: "bea" });
    expect(result.success).toBe(true);
    expect(ids(result)).toEqual([p3, p2, p1]);
  });
  test("status_filter accepts any letter case and several statuses", async () => {
    expect(ids(await get({ user_id: "bea", status_filter: ["current"] }))).toEqual([p2, p1]);
    expect(ids(await get({ status_filter: ["Archived", "pending"], start_time: t0 }))).toEqual([p4, p3]);
  });
  test("filters: id, user, request, name, agent version, source-free text query, tags any-match, created-at range", async () => {
    expect(ids(await get({ user_playbook_id: p2 }))).toEqual([p2]);
    expect(ids(await get({ user_id: "cal" }))).toEqual([p5, p4]);
    expect(ids(await get({ request_id: "r1" }))).toEqual([p1]);
    expect(ids(await get({ playbook_name: "format", start_time: t0 }))).toEqual([p5, p1]);
    expect(ids(await get({ agent_version: "v2" }))).toEqual([p2]);
    expect(ids(await get({ tags: ["sources", "units"] }))).toEqual([p3, p2]);
    expect(ids(await get({ start_time: t0 + 100, end_time: t0 + 300 }))).toEqual([p4, p3, p2]);
    expect(ids(await get({ start_time: t0 + 100, end_time: t0 + 101 }))).toEqual([p2]);
  });
  test("query is a case-insensitive text filter over trigger, content and rationale", async () => {
    expect(ids(await get({ query: "bullet" }))).toEqual([p1]);
    expect(ids(await get({ query: "LONG ANSWERS" }))).toEqual([p1]);
    expect(ids(await get({ query: "checks sources" }))).toEqual([p2]);
    expect(ids(await get({ query: "u_e" }))).toEqual([]);
  });
  test("limit caps the result, 100 by default", async () => {
    expect(ids(await get({ user_id: "bea", limit: 1 }))).toEqual([p3]);
    await addUserPlaybooks(
      svc,
      Array.from({ length: 101 }, (_, i) => ({ user_id: "many", content: `note ${i}` })),
    );
    expect((await get({ user_id: "many" })).user_playbooks).toHaveLength(100);
    expect((await get({ user_id: "many", limit: 200 })).user_playbooks).toHaveLength(101);
  });
  test.each([
    [{ limit: 0 }, "limit"],
    [{ limit: 10001 }, "limit"],
    [{ user_playbook_id: "one" }, "user_playbook_id"],
    [{ user_playbook_id: 0 }, "user_playbook_id"],
    [{ user_id: "u".repeat(256) }, "user_id"],
    [{ status_filter: ["DONE"] }, "status_filter[0]"],
    [{ status_filter: [] }, "status_filter"],
    [{ tags: "format" }, "tags"],
    [{ start_time: 10, end_time: 5 }, "end_time"],
    [{ start_time: -1 }, "start_time"],
  ])("422 for %j names %s", async (body, field) => {
    const response = await svc.call("POST", "/api/get_user_playbooks", body);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
  });
});

describe("update_user_playbook", () => {
  test("changes only the given fields and re-embeds a new content", async () => {
    const [edited, other] = await addUserPlaybooks(svc, [
      { user_id: "dev", trigger: "code review", content: "Point out missing tests", rationale: "r", tags: ["code"] },
      { user_id: "dev", content: "Suggest unit tests for new functions" },
    ]);
    const created = svc.clock.now;
    svc.clock.now += 50;
    const updated = await svc.client.userPlaybooks.update({ user_playbook_id: edited!, content: "Recommend a vegetarian restaurant nearby" });
    expect(updated).toEqual({ success: true, message: `Updated user playbook ${edited}` });
    expect(await getOne(edited!)).toMatchObject({
      trigger: "code review",
      content: "Recommend a vegetarian restaurant nearby",
      rationale: "r",
      tags: ["code"],
      created_at: created,
      last_modified_timestamp: created + 50,
    });
    const nearest = async (query: string) =>
      (await svc.client.userPlaybooks.search({ user_id: "dev", query, search_mode: "vector", threshold: 0, top_k: 1 })).user_playbooks[0]?.user_playbook_id;
    expect(await nearest("where to eat dinner without meat")).toBe(edited!);
    expect(await nearest("checking code quality")).toBe(other!);
  });
  test("playbook_name, trigger and rationale can change too", async () => {
    const [id] = await addUserPlaybooks(svc, [{ user_id: "dev", content: "c" }]);
    await svc.client.userPlaybooks.update({ user_playbook_id: id!, playbook_name: "n", trigger: "t", rationale: "because" });
    expect(await getOne(id!)).toMatchObject({ playbook_name: "n", trigger: "t", rationale: "because", content: "c" });
  });
  test("an unknown id answers 404", async () => {
    await expect(svc.client.userPlaybooks.update({ user_playbook_id: 999999, content: "x" })).rejects.toMatchObject({
      status: 404,
      code: "not_found",
      message: "user playbook 999999 not found",
    });
    await expect(svc.client.userPlaybooks.update({ user_playbook_id: 999999, playbook_name: "x" })).rejects.toMatchObject({ status: 404 });
  });
  test("422 when the edit would leave neither content nor trigger, and nothing changes", async () => {
    const [id] = await addUserPlaybooks(svc, [{ user_id: "dev", content: "only content" }]);
    await expectRejected(svc, "PUT", "/api/update_user_playbook", { user_playbook_id: id, content: " " }, "content");
    await expectRejected(svc, "PUT", "/api/update_user_playbook", { user_playbook_id: id, content: "", trigger: "" }, "content or trigger");
  });
  test.each([
    [{ content: "x" }, "user_playbook_id"],
    [{ user_playbook_id: "7", content: "x" }, "user_playbook_id"],
    [{ user_playbook_id: 1, tags: ["x"] }, "tags"],
    [{ user_playbook_id: 1, content: 5 }, "content"],
  ])("422 for %j names %s", (body, field) => expectRejected(svc, "PUT", "/api/update_user_playbook", body, field).then(() => {}));
});

describe("delete_user_playbook", () => {
  test("deletes one playbook, then answers 404 for it", async () => {
    const [keep, gone] = await addUserPlaybooks(svc, [
      { user_id: "eve", content: "keep" },
      { user_id: "eve", content: "gone" },
    ]);
    expect(await svc.client.userPlaybooks.delete({ user_playbook_id: gone! })).toEqual({ success: true, message: `Deleted user playbook ${gone}` });
    expect(ids(await get({ user_id: "eve" }))).toEqual([keep!]);
    await expect(svc.client.userPlaybooks.delete({ user_playbook_id: gone! })).rejects.toMatchObject({
      status: 404,
      message: `user playbook ${gone} not found`,
    });
  });
  test("422 without an integer id", async () => {
    await expectRejected(svc, "DELETE", "/api/delete_user_playbook", {}, "user_playbook_id");
    await expectRejected(svc, "DELETE", "/api/delete_user_playbook", { user_playbook_id: 1.5 }, "user_playbook_id");
  });
});

describe("storage_stats and tRPC", () => {
  test("storage_stats counts the user's playbooks of every status", async () => {
    expect(await svc.client.profiles.storageStats({ user_id: "bea" })).toMatchObject({ success: true, profile_count: 0, playbook_count: 3 });
  });
  test("the same operations are served over tRPC", async () => {
    const response = await svc.app.handle(
      new Request("http://localhost/trpc/userPlaybooks.get", {
        method: "POST",
        body: JSON.stringify({ user_id: "cal" }),
        headers: { "content-type": "application/json" },
      }),
    );
    const body = (await response.json()) as any;
    expect(body.result.data.user_playbooks.map((p: any) => p.user_id)).toEqual(["cal", "cal"]);
  });
});
