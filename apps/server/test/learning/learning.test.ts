import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { LOCAL_SCOPE, learning } from "@als/db";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { EXPERT_PLAYBOOK, scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
/** Replaces the scripted model's answers for one test; reset before each. */
let override: ((request: FakeLlmRequest) => FakeLlmReply | undefined) | undefined;

beforeAll(async () => {
  llm = await startScriptedLlm((request) => override?.(request) ?? scriptedReply(request));
  svc = await startTestService({ llm: llm.llm });
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});
beforeEach(() => {
  override = undefined;
});

const turn = (content: string, role = "User", extra: object = {}) => ({ role, content, ...extra });
const CONVERSATION = [
  turn("Hi! I have a golden retriever called Biscuit."),
  turn("What a lovely dog. How can I help?", "Agent"),
  turn("I am vegan. Can you suggest a dinner recipe?"),
  turn("Try roast chicken with lemon.", "Agent", { expert_content: "Try a chickpea and spinach curry — fully vegan." }),
];

async function publish(body: object, wait = true) {
  const response = await svc.call("POST", `/api/publish_interaction${wait ? "?wait_for_response=true" : ""}`, body);
  expect(response.status).toBe(200);
  return response.body;
}
const profilesOf = async (userId: string) =>
  (await svc.call("POST", "/api/get_profiles", { user_id: userId, status_filter: ["CURRENT", "PENDING", "ARCHIVED"] })).body.user_profiles;
const playbooksOf = async (userId: string) => (await svc.call("POST", "/api/get_user_playbooks", { user_id: userId })).body.user_playbooks;
const statusOf = async (requestId: string) => (await svc.call("GET", `/api/learning_status?request_id=${requestId}`)).body;
const llmCallsOf = (schemaName: string) => llm.server.requests.filter((r) => r.schemaName === schemaName).length;

describe("learning from a conversation", () => {
  test("a conversation in gives the expected profiles and playbooks out, attributed to the request", async () => {
    const published = await publish({
      user_id: "ana",
      session_id: "s-1",
      source: "chat",
      agent_version: "v7",
      force_extraction: true,
      interaction_data_list: CONVERSATION,
    });
    expect(published).toMatchObject({ learning_status: "done", profiles_created: 2, user_playbooks_created: 1 });
    const profiles = await profilesOf("ana");
    expect(profiles.map((p: any) => p.content).sort()).toEqual(["Is vegan", "Owns a golden retriever named Biscuit"]);
    expect(profiles[0]).toMatchObject({ status: null, source: "chat", generated_from_request_id: published.request_id, profile_time_to_live: "infinity" });
    const [playbook] = await playbooksOf("ana");
    expect(playbook).toMatchObject({ ...EXPERT_PLAYBOOK, user_id: "ana", request_id: published.request_id, agent_version: "v7", source: "chat", status: null });
    expect(await statusOf(published.request_id)).toMatchObject({ status: "done", reason: null });
  });

  test("the expert's response reaches the playbook prompt, and the model sees what the user already has", async () => {
    const prompt = llm.server.requests.find((r) => r.schemaName === "playbook_extraction")!;
    expect(prompt.user).toContain("chickpea and spinach curry");
    await publish({ user_id: "ana", session_id: "s-2", force_extraction: true, interaction_data_list: [turn("Any dessert ideas?")] });
    const latest = llm.server.requests.filter((r) => r.schemaName === "profile_extraction").at(-1)!;
    expect(latest.user).toContain("Owns a golden retriever named Biscuit");
  });

  test("the same conversation again adds no duplicates", async () => {
    const before = { profiles: await profilesOf("ana"), playbooks: await playbooksOf("ana") };
    const again = await publish({ user_id: "ana", session_id: "s-3", force_extraction: true, interaction_data_list: CONVERSATION });
    expect(again).toMatchObject({ learning_status: "done", profiles_created: 0, user_playbooks_created: 0 });
    expect((await profilesOf("ana")).map((p: any) => p.content).sort()).toEqual(before.profiles.map((p: any) => p.content).sort());
    expect((await playbooksOf("ana")).length).toBe(before.playbooks.length);
  });

  test("a restatement in other words is merged into the learning it restates, not added", async () => {
    override = (request) =>
      request.schemaName === "profile_extraction" && request.user.includes("Biscuit is my retriever")
        ? { json: { profiles: [{ content: "Has a golden retriever called Biscuit", time_to_live: "infinity", tags: [] }] } }
        : undefined;
    const calls = llmCallsOf("learning_deduplication");
    const published = await publish({
      user_id: "ana",
      session_id: "s-4",
      force_extraction: true,
      interaction_data_list: [turn("Biscuit is my retriever, remember?")],
    });
    expect(published.profiles_created).toBe(0);
    expect(llmCallsOf("learning_deduplication")).toBe(calls + 1);
    const contents = (await profilesOf("ana")).map((p: any) => p.content);
    expect(contents.length).toBe(2);
    expect(contents).toContain("owns a golden retriever named biscuit (confirmed)");
  });

  test("tokens and cost are recorded per request and stage", async () => {
    const published = await publish({ user_id: "bo", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am in Lisbon this week")] });
    const usage = await learning.llmUsageOfRequest(svc.db, LOCAL_SCOPE, published.request_id);
    expect(usage.map((u) => u.stage).sort()).toEqual(["playbook_extraction", "profile_extraction"]);
    for (const row of usage) {
      expect(row).toMatchObject({ model: "scripted-model", user_id: "bo", cost_usd: null });
      expect(row.input_tokens).toBeGreaterThan(0);
    }
  });

  test("a profile's time to live becomes an expiry that reads honour", async () => {
    const [profile] = await profilesOf("bo");
    expect(profile).toMatchObject({ content: "Is in Lisbon this week", profile_time_to_live: "one_week" });
    expect(profile.expiration_timestamp).toBe(profile.created_at + 7 * 86400);
    svc.clock.now += 8 * 86400;
    try {
      expect(await profilesOf("bo")).toEqual([]);
    } finally {
      svc.clock.now -= 8 * 86400;
    }
  });
});

describe("windows, strides and the inactivity deadline", () => {
  test("a window runs when stride_size new interactions have arrived", async () => {
    expect((await svc.call("POST", "/api/update_config", { window_size: 4, stride_size: 3 })).status).toBe(200);
    const first = await publish({ user_id: "cy", session_id: "s", interaction_data_list: [turn("I have a golden retriever"), turn("Cute!", "Agent")] }, false);
    await svc.learningIdle();
    expect(await statusOf(first.request_id)).toMatchObject({ status: "pending" });
    expect((await statusOf(first.request_id)).reason).toContain("stride_size");
    expect(await profilesOf("cy")).toEqual([]);
    const second = await publish({ user_id: "cy", session_id: "s", interaction_data_list: [turn("That is all")] }, false);
    await svc.learningIdle();
    expect((await statusOf(first.request_id)).status).toBe("done");
    expect((await statusOf(second.request_id)).status).toBe("done");
    expect((await profilesOf("cy")).map((p: any) => p.content)).toEqual(["Owns a golden retriever named Biscuit"]);
  });

  test("a short window completes once its session has been quiet past the inactivity deadline", async () => {
    const published = await publish({ user_id: "dee", session_id: "s", interaction_data_list: [turn("I am vegan")] }, false);
    await svc.learningIdle();
    expect((await statusOf(published.request_id)).status).toBe("pending");
    svc.clock.now += 6 * 3600;
    try {
      svc.reconciler.poke();
      await svc.learningIdle();
      expect((await statusOf(published.request_id)).status).toBe("done");
      expect((await profilesOf("dee")).map((p: any) => p.content)).toEqual(["Is vegan"]);
    } finally {
      svc.clock.now -= 6 * 3600;
    }
  });

  test("evaluation-only interactions never reach extraction", async () => {
    await publish({ user_id: "eli", session_id: "e", evaluation_only: true, interaction_data_list: [turn("I have a golden retriever")] }, false);
    const published = await publish({ user_id: "eli", session_id: "s", force_extraction: true, interaction_data_list: [turn("Hello there")] });
    expect(published.learning_status).toBe("done");
    const prompt = llm.server.requests.filter((r) => r.schemaName === "profile_extraction").at(-1)!;
    expect(prompt.user).toContain("Hello there");
    expect(prompt.user).not.toContain("golden retriever");
    expect(await profilesOf("eli")).toEqual([]);
  });
});

describe("learning status while a window runs", () => {
  test("a request is 'processing' while a step extracts the window it needs, then 'done'", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let extracting!: () => void;
    const started = new Promise<void>((resolve) => {
      extracting = resolve;
    });
    override = (request) => {
      if (request.schemaName !== "profile_extraction") return undefined;
      extracting();
      return undefined;
    };
    llm.server.setHandler(async (request) => {
      const reply = override?.(request) ?? scriptedReply(request);
      if (request.schemaName === "profile_extraction") await held;
      return reply;
    });
    try {
      const published = await publish({ user_id: "ivy", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am vegan")] }, false);
      await started;
      expect(await statusOf(published.request_id)).toMatchObject({ status: "processing", reason: null });
      release();
      await svc.learningIdle();
      expect((await statusOf(published.request_id)).status).toBe("done");
    } finally {
      llm.server.setHandler((request) => override?.(request) ?? scriptedReply(request));
    }
  });
});

describe("provider failures", () => {
  const AUTH_ERROR: FakeLlmReply = { status: 401, error: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided" } };
  const publishOverridingStall = (userId: string) =>
    publish({ user_id: userId, session_id: "s", force_extraction: true, override_learning_stall: true, interaction_data_list: [turn("ok")] });

  test("an auth error stalls learning until a publish overrides the stall", async () => {
    override = () => AUTH_ERROR;
    const stalled = await publish({ user_id: "fay", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am vegan")] });
    expect(stalled.learning_status).toBe("deferred");
    const state = (await svc.call("GET", "/stall_state")).body;
    expect(state).toMatchObject({ stalled: true, reason: "auth_error", notified_in_cc: false });
    expect(JSON.stringify(state)).not.toContain("sk-test-secret-key");
    expect(await statusOf(stalled.request_id)).toMatchObject({ status: "failed" });
    expect((await statusOf(stalled.request_id)).reason).toContain("stalled");

    expect((await svc.call("POST", "/stall_state/notified")).body).toEqual({ success: true, notified_in_cc: true });
    expect((await svc.call("POST", "/stall_state/notified")).body).toEqual({ success: true, notified_in_cc: true });

    override = undefined;
    const calls = llm.server.requests.length;
    const blocked = await publish({ user_id: "fay", session_id: "s", force_extraction: true, interaction_data_list: [turn("still vegan")] });
    expect(blocked.learning_status).toBe("deferred");
    expect(llm.server.requests.length).toBe(calls);

    const resumed = await publishOverridingStall("fay");
    // On failure the request's learning status says why.
    expect({ learning: resumed.learning_status, why: resumed.learning_status === "done" ? null : await statusOf(resumed.request_id) }).toEqual({
      learning: "done",
      why: null,
    });
    expect((await svc.call("GET", "/stall_state")).body).toMatchObject({ stalled: false, reason: null });
    expect((await statusOf(stalled.request_id)).status).toBe("done");
    expect((await profilesOf("fay")).map((p: any) => p.content)).toEqual(["Is vegan"]);
  });

  test("a request published after a final failure is judged by its own attempt, however late the step starts", async () => {
    override = () => AUTH_ERROR;
    const stalled = await publish({ user_id: "hal", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am vegan")] });
    expect(stalled.learning_status).toBe("deferred");
    override = undefined;
    // A worker that is slow to pick the user up (a busy machine, a Temporal workflow starting):
    // until its step runs, the cursors still carry the failure of the attempt before this request.
    svc.orchestratorDelay.ms = 300;
    try {
      const unseen = await publish({ user_id: "hal", session_id: "s", interaction_data_list: [turn("I cycle to work")] }, false);
      expect((await statusOf(unseen.request_id)).status).toBe("pending");
      expect((await statusOf(unseen.request_id)).reason).toStartWith("not tried yet; the attempt before it failed: learning is stalled");
      const resumed = await publishOverridingStall("hal");
      expect(resumed.learning_status).toBe("done");
    } finally {
      svc.orchestratorDelay.ms = 0;
    }
    expect((await statusOf(stalled.request_id)).status).toBe("done");
  });

  test("once a publish's override has cleared the stall, the other users' paused learning resumes on its own", async () => {
    override = () => AUTH_ERROR;
    const first = await publish({ user_id: "ida", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am vegan")] });
    const paused = await publish({ user_id: "jon", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am in Lisbon this week")] });
    expect([first.learning_status, paused.learning_status]).toEqual(["deferred", "deferred"]);
    expect((await statusOf(paused.request_id)).reason).toStartWith("learning is stalled");
    override = undefined;
    expect((await publishOverridingStall("ida")).learning_status).toBe("done");
    await svc.learningIdle();
    expect(await statusOf(paused.request_id)).toMatchObject({ status: "done", reason: null });
    expect((await profilesOf("jon")).map((p: any) => p.content)).toEqual(["Is in Lisbon this week"]);
  });

  test("a transient provider error is retried and the window completes", async () => {
    let failures = 1;
    override = () => (failures-- > 0 ? { status: 503, error: { type: "server_error", message: "overloaded" } } : undefined);
    const published = await publish({ user_id: "gus", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am in Lisbon this week")] });
    expect({ learning: published.learning_status, why: published.learning_status === "done" ? null : await statusOf(published.request_id) }).toEqual({
      learning: "done",
      why: null,
    });
    expect((await profilesOf("gus")).map((p: any) => p.content)).toEqual(["Is in Lisbon this week"]);
  });
});

describe("clear_user_data", () => {
  test("removes the user's interactions, requests, profiles and user playbooks, and nobody else's", async () => {
    const cleared = await svc.call("POST", "/api/clear_user_data", { user_id: "ana" });
    expect(cleared.status).toBe(200);
    expect(cleared.body.deleted_counts.profiles).toBe(2);
    expect(cleared.body.deleted_counts.user_playbooks).toBe(1);
    expect(cleared.body.deleted_counts.interactions).toBeGreaterThan(0);
    expect(await profilesOf("ana")).toEqual([]);
    expect(await playbooksOf("ana")).toEqual([]);
    expect((await svc.call("POST", "/api/get_interactions", { user_id: "ana" })).body.interactions).toEqual([]);
    expect((await profilesOf("bo")).length).toBe(1);
  });
});
