import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { addAgentPlaybooks, addUserPlaybooks, expectRejected } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let sources: number[];
beforeAll(async () => {
  svc = await startTestService();
  sources = await addUserPlaybooks(svc, [
    { user_id: "ann", content: "Offer a discount code", source: "chat" },
    { user_id: "ben", content: "Offer free shipping", source: "email" },
  ]);
});
afterAll(() => svc.close());

const ANY_APPROVAL = ["PENDING", "APPROVED", "REJECTED"];
const get = (input: ClientInput<"agentPlaybooks", "get">) => svc.client.agentPlaybooks.get(input);
const ids = (result: { agent_playbooks: { agent_playbook_id: number }[] }) => result.agent_playbooks.map((p) => p.agent_playbook_id);
const getOne = async (id: number) => (await get({ agent_playbook_id: id, playbook_status_filter: ANY_APPROVAL })).agent_playbooks[0];

describe("add_agent_playbook", () => {
  test("defaults: PENDING approval, empty metadata object, CURRENT, no sources", async () => {
    const added = await svc.client.agentPlaybooks.add({ agent_playbooks: [{ trigger: "a churn risk", content: "Offer a retention deal" }] });
    expect(added).toMatchObject({ success: true, added_count: 1 });
    const id = added.agent_playbook_ids[0]!;
    expect(await getOne(id)).toEqual({
      agent_playbook_id: id,
      agent_version: "agent-v0",
      playbook_name: "",
      trigger: "a churn risk",
      content: "Offer a retention deal",
      rationale: "",
      structured_data: { trigger: "a churn risk", rationale: "" },
      playbook_status: "pending",
      playbook_metadata: "{}",
      tags: [],
      status: null,
      source_user_playbook_ids: [],
      created_at: svc.clock.now,
      last_modified_timestamp: svc.clock.now,
    });
  });

  test("links source user playbooks and keeps metadata text as written; statuses in any case", async () => {
    const metadata = '{"cluster": 4, "members": ["a", "b"]}';
    const [id] = await addAgentPlaybooks(svc, [
      {
        content: "Offer a small incentive",
        playbook_status: "approved",
        status: "pending",
        playbook_metadata: metadata,
        source_user_playbook_ids: [sources[1], sources[0], sources[1]],
        tags: ["sales"],
        agent_version: "v3",
        playbook_name: "incentives",
        rationale: "Both users converted after an incentive",
      },
    ]);
    expect(await getOne(id!)).toMatchObject({
      playbook_status: "approved",
      status: "pending",
      playbook_metadata: metadata,
      source_user_playbook_ids: [...sources].sort((a, b) => a - b),
      tags: ["sales"],
      agent_version: "v3",
      playbook_name: "incentives",
      rationale: "Both users converted after an incentive",
    });
  });

  test("parallel adds with links lose nothing", async () => {
    const added = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        svc.client.agentPlaybooks.add({
          agent_playbooks: [{ content: `parallel rule ${i}`, playbook_name: "parallel", source_user_playbook_ids: [sources[i % 2]!] }],
        }),
      ),
    );
    expect(added).toHaveLength(12);
    const stored = await get({ playbook_name: "parallel", playbook_status_filter: ANY_APPROVAL });
    expect(stored.agent_playbooks).toHaveLength(12);
    expect(stored.agent_playbooks.every((p) => p.source_user_playbook_ids.length === 1)).toBe(true);
  });

  describe("validation (422 naming the field or list index, nothing stored)", () => {
    const add = (body: unknown, field: string) => expectRejected(svc, "POST", "/api/add_agent_playbook", body, field);
    test("agent_playbooks missing or empty", async () => {
      await add({}, "agent_playbooks");
      await add({ agent_playbooks: [] }, "agent_playbooks");
    });
    test("neither content nor trigger", () => add({ agent_playbooks: [{ content: "ok" }, { rationale: "why" }] }, "agent_playbooks[1].content"));
    test.each([["[1, 2]"], ["not json"], ["42"], ["null"], ['"text"']])("playbook_metadata %j is not JSON object text", (metadata) =>
      add({ agent_playbooks: [{ content: "x", playbook_metadata: metadata }] }, "agent_playbooks[0].playbook_metadata").then(() => {}));
    test("playbook_metadata as an object rather than its text", () =>
      add({ agent_playbooks: [{ content: "x", playbook_metadata: { a: 1 } }] }, "agent_playbooks[0].playbook_metadata"));
    test("playbook_status outside the enumeration", () =>
      add({ agent_playbooks: [{ content: "x", playbook_status: "CURRENT" }] }, "agent_playbooks[0].playbook_status"));
    test("status outside the enumeration", () => add({ agent_playbooks: [{ content: "x", status: "APPROVED" }] }, "agent_playbooks[0].status"));
    test("source ids that are not positive integers", () =>
      add({ agent_playbooks: [{ content: "x", source_user_playbook_ids: [1, "2"] }] }, "agent_playbooks[0].source_user_playbook_ids[1]"));
    test("unknown source user playbook ids name their list index; nothing of the batch is stored", async () => {
      const body = await add(
        {
          agent_playbooks: [
            { content: "fine", source_user_playbook_ids: [sources[0]] },
            { content: "x", source_user_playbook_ids: [sources[1], 987654] },
          ],
        },
        "agent_playbooks[1].source_user_playbook_ids[1]",
      );
      expect(body.message).toContain("987654");
    });
  });
});

describe("get_agent_playbooks", () => {
  let t0: number;
  const id: Record<string, number> = {};
  beforeAll(async () => {
    svc.clock.now += 1000;
    t0 = svc.clock.now;
    const playbooks: [string, object][] = [
      ["approved", { trigger: "Refund QUESTIONS", content: "Link the refund policy", playbook_status: "APPROVED", tags: ["billing"], playbook_name: "g" }],
      ["pending", { content: "Ask for the order number", playbook_status: "PENDING", tags: ["orders"], playbook_name: "g" }],
      ["rejected", { content: "Promise delivery tomorrow", playbook_status: "REJECTED", rationale: "too risky", playbook_name: "g" }],
      ["archived", { content: "Mention the old policy", playbook_status: "APPROVED", status: "ARCHIVED", agent_version: "v1", playbook_name: "g" }],
    ];
    for (const [name, playbook] of playbooks) {
      id[name] = (await addAgentPlaybooks(svc, [playbook]))[0]!;
      svc.clock.now += 100;
    }
  });

  test("unfiltered reads return APPROVED playbooks of every status, newest first", async () => {
    const result = await get({ playbook_name: "g" });
    expect(result.success).toBe(true);
    expect(ids(result)).toEqual([id.archived!, id.approved!]);
  });
  test("playbook_status_filter takes one status or a list, in any letter case", async () => {
    expect(ids(await get({ playbook_name: "g", playbook_status_filter: "rejected" }))).toEqual([id.rejected!]);
    expect(ids(await get({ playbook_name: "g", playbook_status_filter: ["pending", "Rejected"] }))).toEqual([id.rejected!, id.pending!]);
  });
  test("filters: id, text query (case-insensitive), agent_version, status_filter, tags any-match, created-at range", async () => {
    const all = { playbook_status_filter: ANY_APPROVAL };
    expect(ids(await get({ ...all, agent_playbook_id: id.pending }))).toEqual([id.pending!]);
    expect(ids(await get({ ...all, query: "refund questions" }))).toEqual([id.approved!]);
    expect(ids(await get({ ...all, query: "TOO RISKY" }))).toEqual([id.rejected!]);
    expect(ids(await get({ ...all, agent_version: "v1" }))).toEqual([id.archived!]);
    expect(ids(await get({ ...all, playbook_name: "g", status_filter: ["current"] }))).toEqual([id.rejected!, id.pending!, id.approved!]);
    expect(ids(await get({ ...all, tags: ["orders", "billing"] }))).toEqual([id.pending!, id.approved!]);
    expect(ids(await get({ ...all, start_time: t0 + 100, end_time: t0 + 200 }))).toEqual([id.rejected!, id.pending!]);
  });
  test("limit caps the result; force_refresh is accepted", async () => {
    expect(ids(await get({ playbook_name: "g", limit: 1 }))).toEqual([id.archived!]);
    expect(ids(await get({ playbook_name: "g", force_refresh: true }))).toEqual([id.archived!, id.approved!]);
  });
  test.each([
    [{ playbook_status_filter: ["done"] }, "playbook_status_filter[0]"],
    [{ playbook_status_filter: [] }, "playbook_status_filter"],
    [{ status_filter: ["APPROVED"] }, "status_filter[0]"],
    [{ limit: 0 }, "limit"],
    [{ agent_playbook_id: -3 }, "agent_playbook_id"],
    [{ force_refresh: "yes" }, "force_refresh"],
    [{ start_time: 5, end_time: 5 }, "end_time"],
  ])("422 for %j names %s", async (body, field) => {
    const response = await svc.call("POST", "/api/get_agent_playbooks", body);
    expect(response.status).toBe(422);
    expect(response.body.message).toContain(field);
  });
});

describe("update_agent_playbook and update_agent_playbook_status", () => {
  test("update changes the given text and the approval status (lowercase accepted), and re-embeds", async () => {
    const [edited, other] = await addAgentPlaybooks(svc, [
      { trigger: "slow replies", content: "Apologise for the delay", tags: ["t"] },
      { content: "Share the status page during outages", tags: ["t"] },
    ]);
    svc.clock.now += 30;
    const updated = await svc.client.agentPlaybooks.update({
      agent_playbook_id: edited!,
      content: "Suggest a hiking trail in the mountains",
      playbook_status: "approved",
      rationale: "seasonal",
    });
    expect(updated).toEqual({ success: true, message: `Updated agent playbook ${edited}` });
    expect(await getOne(edited!)).toMatchObject({
      trigger: "slow replies",
      content: "Suggest a hiking trail in the mountains",
      rationale: "seasonal",
      playbook_status: "approved",
      tags: ["t"],
      last_modified_timestamp: svc.clock.now,
    });
    const nearest = async (query: string) =>
      (await svc.client.agentPlaybooks.search({ query, search_mode: "vector", threshold: 0, top_k: 1, tags: ["t"] })).agent_playbooks[0]?.agent_playbook_id;
    expect(await nearest("outdoor walking in nature")).toBe(edited);
    expect(await nearest("the website is down")).toBe(other);
  });
  test("update_agent_playbook_status sets each approval state, in any letter case", async () => {
    const [id] = await addAgentPlaybooks(svc, [{ content: "Confirm the address" }]);
    for (const [sent, stored] of [
      ["approved", "APPROVED"],
      ["Rejected", "REJECTED"],
      ["PENDING", "PENDING"],
    ] as const) {
      const updated = await svc.client.agentPlaybooks.updateStatus({ agent_playbook_id: id!, playbook_status: sent });
      expect(updated).toEqual({ success: true, message: `Agent playbook ${id} is now ${stored}` });
      expect((await getOne(id!))!.playbook_status).toBe(stored.toLowerCase() as Lowercase<typeof stored>);
    }
  });
  test("unknown ids answer 404", async () => {
    for (const [path, body] of [
      ["/api/update_agent_playbook", { agent_playbook_id: 424242, content: "x" }],
      ["/api/update_agent_playbook", { agent_playbook_id: 424242, playbook_status: "APPROVED" }],
      ["/api/update_agent_playbook_status", { agent_playbook_id: 424242, playbook_status: "APPROVED" }],
    ] as const) {
      const response = await svc.call("PUT", path, body);
      expect(response.status).toBe(404);
      expect(response.body.detail).toBe("agent playbook 424242 not found");
    }
  });
  test("422 for invalid edits, and nothing changes", async () => {
    const [id] = await addAgentPlaybooks(svc, [{ trigger: "only a trigger" }]);
    const put = (path: string, body: object, field: string) => expectRejected(svc, "PUT", path, body, field);
    await put("/api/update_agent_playbook", { agent_playbook_id: id, trigger: "" }, "content or trigger");
    await put("/api/update_agent_playbook", { agent_playbook_id: id, playbook_status: "archived" }, "playbook_status");
    await put("/api/update_agent_playbook", { agent_playbook_id: id, playbook_metadata: "{}" }, "playbook_metadata");
    await put("/api/update_agent_playbook", { content: "x" }, "agent_playbook_id");
    await put("/api/update_agent_playbook_status", { agent_playbook_id: id }, "playbook_status");
    await put("/api/update_agent_playbook_status", { agent_playbook_id: id, playbook_status: "done" }, "playbook_status");
    await put("/api/update_agent_playbook_status", { playbook_status: "APPROVED" }, "agent_playbook_id");
  });
});

describe("delete_agent_playbook and links", () => {
  test("deleting an agent playbook keeps its sources; a second delete answers 404", async () => {
    const [id] = await addAgentPlaybooks(svc, [{ content: "temporary", source_user_playbook_ids: [sources[0]] }]);
    expect(await svc.client.agentPlaybooks.delete({ agent_playbook_id: id! })).toEqual({ success: true, message: `Deleted agent playbook ${id}` });
    expect(await getOne(id!)).toBeUndefined();
    expect((await svc.client.userPlaybooks.get({ user_playbook_id: sources[0]! })).user_playbooks).toHaveLength(1);
    await expect(svc.client.agentPlaybooks.delete({ agent_playbook_id: id! })).rejects.toMatchObject({
      status: 404,
      code: "not_found",
      message: `agent playbook ${id} not found`,
    });
  });
  test("deleting a source user playbook unlinks it; the agent playbook stays", async () => {
    const [source] = await addUserPlaybooks(svc, [{ user_id: "cleo", content: "Use emoji sparingly" }]);
    const [id] = await addAgentPlaybooks(svc, [{ content: "Keep emoji rare", source_user_playbook_ids: [source, sources[1]] }]);
    await svc.client.userPlaybooks.delete({ user_playbook_id: source! });
    expect((await getOne(id!))!.source_user_playbook_ids).toEqual([sources[1]!]);
  });
  test("422 without an integer id", () => expectRejected(svc, "DELETE", "/api/delete_agent_playbook", { agent_playbook_id: "1" }, "agent_playbook_id"));
});
