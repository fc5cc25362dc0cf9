import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LOCAL_SCOPE, learning, profileChangeLog } from "@als/db";
import { EXPERT_PLAYBOOK, scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { statusName } from "@als/test-support/wire-status.ts";

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
/** Set: the scripted model answers only once it resolves (to see a call answer before the work is done). */
let gate: Promise<void> | undefined;

const T0 = 1_700_000_000;
const turn = (content: string, role = "User", extra: object = {}) => ({ role, content, ...extra });
const expertTurn = turn("Try roast chicken with lemon.", "Agent", { expert_content: "Try a chickpea and spinach curry — fully vegan." });

async function publish(body: object) {
  const response = await svc.call("POST", "/api/publish_interaction", body);
  expect(response.status).toBe(200);
  return response.body;
}

beforeAll(async () => {
  llm = await startScriptedLlm(async (request) => {
    await gate;
    return scriptedReply(request);
  });
  svc = await startTestService({ llm: llm.llm });
  // Requests of one or two interactions stay below the default stride: learning leaves them alone.
  await publish({
    user_id: "ana",
    session_id: "a",
    source: "chat",
    agent_version: "v1",
    interaction_data_list: [turn("I have a golden retriever called Biscuit.", "User", { created_at: T0 + 100 })],
  });
  await publish({
    user_id: "ana",
    session_id: "a",
    source: "chat",
    agent_version: "v1",
    evaluation_only: true,
    interaction_data_list: [turn("EVALUATION ONLY: I am in Lisbon this week", "User", { created_at: T0 + 150 })],
  });
  await publish({
    user_id: "ana",
    session_id: "a",
    source: "email",
    agent_version: "v1",
    interaction_data_list: [turn("I am vegan. A dinner recipe?", "User", { created_at: T0 + 200 }), { ...expertTurn, created_at: T0 + 201 }],
  });
  await publish({
    user_id: "bo",
    session_id: "b",
    source: "chat",
    agent_version: "v2",
    interaction_data_list: [turn("I am in Lisbon this week. Dinner?", "User", { created_at: T0 + 300 }), { ...expertTurn, created_at: T0 + 301 }],
  });
  await publish({
    user_id: "dee",
    session_id: "d",
    source: "chat",
    agent_version: "v1",
    interaction_data_list: [turn("I have a golden retriever", "User", { created_at: T0 + 400 })],
  });
  await publish({
    user_id: "dee",
    session_id: "d",
    source: "chat",
    agent_version: "v1",
    interaction_data_list: [turn("I am in Lisbon this week", "User", { created_at: T0 + 500 })],
  });
  await svc.learningIdle();
  // Windows of one interaction make the window-by-window reading countable. Changing the
  // configuration wakes no learning: nobody published since.
  expect((await svc.call("POST", "/api/update_config", { window_size: 1, stride_size: 1 })).status).toBe(200);
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});

const profilesOf = async (userId: string) =>
  (await svc.call("POST", "/api/get_profiles", { user_id: userId, status_filter: ["CURRENT", "PENDING", "ARCHIVED"] })).body.user_profiles as any[];
const playbooksOf = async (userId: string) =>
  (await svc.call("POST", "/api/get_user_playbooks", { user_id: userId, status_filter: ["CURRENT", "PENDING", "ARCHIVED"] })).body.user_playbooks as any[];
/** "status: content" of each profile, sorted: what a user has, in a form that compares whole. */
const summaryOf = async (userId: string) => (await profilesOf(userId)).map((p) => `${statusName(p.status)}: ${p.content}`).sort();
const extractionCalls = (schemaName: string) => llm.server.requests.filter((r) => r.schemaName === schemaName);
const coveredSeqs = async (userId: string) => (await learning.readCursors(svc.db, LOCAL_SCOPE, userId)).map((c) => c.covered_seq);

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function expectRefused(path: string, body: object, status: number, mention: string) {
  const before = { calls: llm.server.requests.length, ana: await summaryOf("ana"), bo: await summaryOf("bo"), playbooks: await playbooksOf("ana") };
  const response = await svc.call("POST", path, body);
  expect(response.status).toBe(status);
  expect(JSON.stringify(response.body)).toContain(mention);
  expect(llm.server.requests.length).toBe(before.calls);
  expect({ calls: llm.server.requests.length, ana: await summaryOf("ana"), bo: await summaryOf("bo"), playbooks: await playbooksOf("ana") }).toEqual(before);
  return response.body;
}

describe("manual generation", () => {
  test("is refused while the project does not allow manual triggering, and changes nothing", async () => {
    expect((await svc.call("POST", "/api/update_config", { profile_extractor_config: { allow_manual_trigger: false } })).status).toBe(200);
    await expectRefused("/api/manual_profile_generation", { user_id: "dee" }, 409, "profile_extractor_config.allow_manual_trigger");
    expect(
      (await svc.call("POST", "/api/update_config", { profile_extractor_config: {}, user_playbook_extractor_config: { allow_manual_trigger: false } })).status,
    ).toBe(200);
    await expectRefused("/api/manual_playbook_generation", { agent_version: "v1" }, 409, "user_playbook_extractor_config.allow_manual_trigger");
    expect((await svc.call("POST", "/api/update_config", { user_playbook_extractor_config: {} })).status).toBe(200);
    expect(await summaryOf("dee")).toEqual([]);
  });

  test("extracts the most recent window as CURRENT learnings, without moving the cursors", async () => {
    const response = await svc.call("POST", "/api/manual_profile_generation", { user_id: "dee", extractor_names: ["ignored"] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: expect.any(String) });
    // window_size is 1: only the newest interaction is read, so the retriever is not learned.
    expect(
      await eventually(
        () => summaryOf("dee"),
        (s) => s.length > 0,
      ),
    ).toEqual(["CURRENT: Is in Lisbon this week"]);
    expect(await coveredSeqs("dee")).toEqual([0, 0]);
  });

  test("deduplicates against the CURRENT learnings", async () => {
    const calls = extractionCalls("profile_extraction").length;
    expect((await svc.call("POST", "/api/manual_profile_generation", { user_id: "dee" })).status).toBe(200);
    await eventually(
      async () => extractionCalls("profile_extraction").length,
      (n) => n > calls,
    );
    // The run holds dee's learning lease until it has committed.
    await eventually(
      () => learning.isUserLeased(svc.db, LOCAL_SCOPE, "dee", svc.clock.now),
      (leased) => !leased,
    );
    expect(await summaryOf("dee")).toEqual(["CURRENT: Is in Lisbon this week"]);
  });

  test("manual playbook generation reads the agent version's interactions", async () => {
    expect((await svc.call("POST", "/api/manual_playbook_generation", { agent_version: "v1", playbook_name: "ignored" })).status).toBe(200);
    const [playbook] = await eventually(
      () => playbooksOf("ana"),
      (p) => p.length > 0,
    );
    expect(playbook).toMatchObject({ ...EXPERT_PLAYBOOK, status: null, agent_version: "v1", source: "email" });
    expect(await playbooksOf("bo")).toEqual([]);
  });
});

describe("rerun generation", () => {
  test("regenerates PENDING profiles from every user's interactions, window by window, leaving the cursors alone", async () => {
    const before = extractionCalls("profile_extraction").length;
    const response = await svc.call("POST", "/api/rerun_profile_generation", { wait_for_response: true, extractor_names: ["ignored"] });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, profiles_generated: 5 });
    // One call per window of one interaction: ana 3, bo 2, dee 2; the evaluation-only one is never read.
    const calls = extractionCalls("profile_extraction").slice(before);
    expect(calls.length).toBe(7);
    expect(calls.some((c) => c.user.includes("EVALUATION ONLY"))).toBe(false);
    expect(await summaryOf("ana")).toEqual(["PENDING: Is vegan", "PENDING: Owns a golden retriever named Biscuit"]);
    expect(await summaryOf("bo")).toEqual(["PENDING: Is in Lisbon this week"]);
    // Deduplicated only against the rerun's own output: dee's CURRENT fact is generated again.
    expect(await summaryOf("dee")).toEqual([
      "CURRENT: Is in Lisbon this week",
      "PENDING: Is in Lisbon this week",
      "PENDING: Owns a golden retriever named Biscuit",
    ]);
    for (const user of ["ana", "bo", "dee"]) expect(await coveredSeqs(user)).toEqual([0, 0]);
  });

  test("source and time filters select the interactions; a rerun replaces the PENDING output of the one before", async () => {
    const bySource = await svc.call("POST", "/api/rerun_profile_generation", { user_id: "ana", source: "chat", wait_for_response: true });
    expect(bySource.body.profiles_generated).toBe(1);
    expect(await summaryOf("ana")).toEqual(["PENDING: Owns a golden retriever named Biscuit"]);
    const byTime = await svc.call("POST", "/api/rerun_profile_generation", {
      user_id: "ana",
      start_time: T0 + 150,
      end_time: T0 + 250,
      wait_for_response: true,
    });
    expect(byTime.body.profiles_generated).toBe(1);
    expect(await summaryOf("ana")).toEqual(["PENDING: Is vegan"]);
    expect(await summaryOf("bo")).toEqual(["PENDING: Is in Lisbon this week"]);
  });

  test("without wait_for_response it answers before the work is done", async () => {
    const before = extractionCalls("profile_extraction").length;
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    try {
      const response = await svc.call("POST", "/api/rerun_profile_generation", { user_id: "ana" });
      expect(response.status).toBe(200);
      expect(response.body.success).toBe(true);
      expect(response.body.profiles_generated).toBeUndefined();
    } finally {
      release();
      gate = undefined;
    }
    // Three windows of ana's; the last yields nothing, so after its call only bookkeeping is left.
    await eventually(
      async () => extractionCalls("profile_extraction").length,
      (n) => n === before + 3,
    );
    expect(
      await eventually(
        () => summaryOf("ana"),
        (s) => s.length === 2,
      ),
    ).toEqual(["PENDING: Is vegan", "PENDING: Owns a golden retriever named Biscuit"]);
  });

  test("two reruns of the same user at once take turns: the output is one generation, not two", async () => {
    const [first, second] = await Promise.all([1, 2].map(() => svc.call("POST", "/api/rerun_profile_generation", { user_id: "ana", wait_for_response: true })));
    expect([first!.status, second!.status]).toEqual([200, 200]);
    expect(await summaryOf("ana")).toEqual(["PENDING: Is vegan", "PENDING: Owns a golden retriever named Biscuit"]);
  });

  test("a window bounded the wrong way round is a 422 naming end_time", async () => {
    const body = await expectRefused("/api/rerun_profile_generation", { start_time: T0 + 200, end_time: T0 + 100, wait_for_response: true }, 422, "end_time");
    expect(body.detail[0].loc).toEqual(["body", "end_time"]);
  });

  test("playbook reruns need agent_version (422 naming it) and write PENDING user playbooks of that version", async () => {
    const body = await expectRefused("/api/rerun_playbook_generation", { wait_for_response: true }, 422, "agent_version");
    expect(body.detail[0].loc).toEqual(["body", "agent_version"]);
    await expectRefused("/api/manual_playbook_generation", {}, 422, "agent_version");

    const v2 = await svc.call("POST", "/api/rerun_playbook_generation", { agent_version: "v2", playbook_name: "ignored", wait_for_response: true });
    expect(v2.body).toMatchObject({ success: true, user_playbooks_generated: 1 });
    expect(await playbooksOf("bo")).toMatchObject([{ ...EXPERT_PLAYBOOK, status: "pending", agent_version: "v2", source: "chat" }]);
    // ana's CURRENT v1 playbook does not keep the rerun from generating it again.
    const v1 = await svc.call("POST", "/api/rerun_playbook_generation", { agent_version: "v1", wait_for_response: true });
    expect(v1.body.user_playbooks_generated).toBe(1);
    expect((await playbooksOf("ana")).map((p) => `${statusName(p.status)} ${p.agent_version}`).sort()).toEqual(["CURRENT v1", "PENDING v1"]);
  });
});

describe("upgrades", () => {
  test("PENDING profiles become CURRENT, CURRENT become ARCHIVED, old ARCHIVED are deleted, and the change is logged", async () => {
    const added = await svc.call("POST", "/api/add_user_profile", {
      user_profiles: [
        { user_id: "ana", content: "Used to live in Porto", status: "ARCHIVED" },
        { user_id: "ana", content: "Prefers short answers" },
        { user_id: "cy", content: "Speaks Portuguese" },
      ],
    });
    expect(added.status).toBe(200);
    const response = await svc.call("POST", "/api/upgrade_all_profiles", {});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, upgraded_users: 3, profiles_promoted: 5, profiles_archived: 2, profiles_deleted: 1 });
    expect(await summaryOf("ana")).toEqual(["ARCHIVED: Prefers short answers", "CURRENT: Is vegan", "CURRENT: Owns a golden retriever named Biscuit"]);
    expect(await summaryOf("bo")).toEqual(["CURRENT: Is in Lisbon this week"]);
    expect(await summaryOf("dee")).toEqual([
      "ARCHIVED: Is in Lisbon this week",
      "CURRENT: Is in Lisbon this week",
      "CURRENT: Owns a golden retriever named Biscuit",
    ]);
    // Without a replacement nothing is archived.
    expect(await summaryOf("cy")).toEqual(["CURRENT: Speaks Portuguese"]);
    const [change] = await profileChangeLog.listProfileChanges(svc.db, LOCAL_SCOPE, { userId: "ana", limit: 1 });
    expect(change!.added_profiles.map((p) => p.content).sort()).toEqual(["Is vegan", "Owns a golden retriever named Biscuit"]);
    expect(change!.removed_profiles.map((p) => `${p.status}: ${p.content}`)).toEqual(["ARCHIVED: Prefers short answers"]);
  });

  test("with nothing pending an upgrade changes nothing, even for users not affected", async () => {
    const before = await Promise.all(["ana", "bo", "cy", "dee"].map(summaryOf));
    for (const body of [{}, { only_affected_users: false }, { user_id: "cy", only_affected_users: false }]) {
      const response = await svc.call("POST", "/api/upgrade_all_profiles", body);
      expect(response.body).toMatchObject({ upgraded_users: 0, profiles_promoted: 0, profiles_archived: 0, profiles_deleted: 0 });
    }
    expect(await Promise.all(["ana", "bo", "cy", "dee"].map(summaryOf))).toEqual(before);
  });

  test("user playbooks upgrade per user and agent version", async () => {
    const none = await svc.call("POST", "/api/upgrade_all_user_playbooks", { agent_version: "v3" });
    expect(none.body).toMatchObject({ upgraded_users: 0, user_playbooks_promoted: 0, user_playbooks_archived: 0, user_playbooks_deleted: 0 });
    expect((await playbooksOf("bo"))[0].status).toBe("pending");

    const v1 = await svc.call("POST", "/api/upgrade_all_user_playbooks", { agent_version: "v1" });
    expect(v1.body).toMatchObject({ upgraded_users: 1, user_playbooks_promoted: 1, user_playbooks_archived: 1, user_playbooks_deleted: 0 });
    expect((await playbooksOf("ana")).map((p) => statusName(p.status)).sort()).toEqual(["ARCHIVED", "CURRENT"]);
    expect((await playbooksOf("bo"))[0].status).toBe("pending");

    const all = await svc.call("POST", "/api/upgrade_all_user_playbooks");
    expect(all.body).toMatchObject({ upgraded_users: 1, user_playbooks_promoted: 1, user_playbooks_archived: 0, user_playbooks_deleted: 0 });
    expect((await playbooksOf("bo"))[0].status).toBeNull();

    // A second v1 generation upgraded deletes the first one's ARCHIVED playbook; a playbook_name
    // filter leaves playbooks of other names alone.
    await svc.call("POST", "/api/rerun_playbook_generation", { agent_version: "v1", wait_for_response: true });
    const otherName = await svc.call("POST", "/api/upgrade_all_user_playbooks", { agent_version: "v1", playbook_name: "other" });
    expect(otherName.body).toMatchObject({ upgraded_users: 0, user_playbooks_promoted: 0 });
    const again = await svc.call("POST", "/api/upgrade_all_user_playbooks", { agent_version: "v1" });
    expect(again.body).toMatchObject({ upgraded_users: 1, user_playbooks_promoted: 1, user_playbooks_archived: 1, user_playbooks_deleted: 1 });
    expect((await playbooksOf("ana")).map((p) => statusName(p.status)).sort()).toEqual(["ARCHIVED", "CURRENT"]);
  });
});

describe("without an LLM provider", () => {
  test("generation answers 503 naming what to configure, and writes nothing", async () => {
    const bare = await startTestService();
    try {
      for (const [path, body] of [
        ["/api/rerun_profile_generation", { wait_for_response: true }],
        ["/api/rerun_playbook_generation", { agent_version: "v1" }],
        ["/api/manual_profile_generation", {}],
        ["/api/manual_playbook_generation", { agent_version: "v1" }],
      ] as const) {
        const response = await bare.call("POST", path, body);
        expect(response.status).toBe(503);
        expect(response.body).toMatchObject({ error: "llm_unavailable" });
        expect(response.body.detail).toContain("LLM_PROVIDER");
      }
    } finally {
      await bare.close();
    }
  });
});
