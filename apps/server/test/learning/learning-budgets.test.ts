import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLlm } from "@als/ai";
import { LOCAL_SCOPE } from "@als/db";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// Input budgets of learning, with the scripted model (an OpenAI-compatible server, so tokens are the
// documented estimate: one per 2.5 bytes). A window over budget is reduced; one that cannot fit is
// held, with the windows after it waiting, until it is skipped or retried with a larger budget; a
// budget the configuration cannot meet fails with backoff and heals once fixed.

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;

beforeAll(async () => {
  llm = await startScriptedLlm();
  svc = await startTestService({ llm: llm.llm });
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});

const BUDGET = 3_000;
const filler = (words: number, seed: string) => Array.from({ length: words }, (_, i) => `${seed}${i % 97}`).join(" ");

async function setBudget(tokens: number) {
  expect((await svc.call("POST", "/api/update_config", { learning_input_budget_tokens: tokens })).status).toBe(200);
}

async function publish(userId: string, turns: { role: string; content: string }[], force = true) {
  const response = await svc.call("POST", "/api/publish_interaction", {
    user_id: userId,
    session_id: `${userId}-s`,
    force_extraction: force,
    interaction_data_list: turns,
  });
  expect(response.status).toBe(200);
  await svc.learningIdle();
  return response.body.request_id as string;
}

const statusOf = async (requestId: string) => (await svc.call("GET", `/api/learning_status?request_id=${requestId}`)).body;
const profilesOf = async (userId: string) =>
  (await svc.call("POST", "/api/get_profiles", { user_id: userId })).body.user_profiles.map((p: any) => p.content).sort();
const extractionPromptsFor = (userId: string) =>
  llm.server.requests.filter((r) => r.schemaName === "profile_extraction" && r.user.includes(userId)).map((r) => r.user);

describe("fitting a window into its input budget", () => {
  test("a window with one very long turn is learned with that turn cut in the middle", async () => {
    await setBudget(BUDGET);
    const requestId = await publish("cut-user", [
      { role: "User", content: `cut-user here. ${filler(8_000, "log")} I have a golden retriever called Biscuit.` },
      { role: "User", content: "I am vegan." },
    ]);
    expect(await statusOf(requestId)).toMatchObject({ status: "done" });
    expect(await profilesOf("cut-user")).toEqual(["Is vegan", "Owns a golden retriever named Biscuit"]);
    const [prompt] = extractionPromptsFor("cut-user");
    expect(prompt).toContain("characters cut to fit the input budget");
    expect(prompt!.length).toBeLessThan(BUDGET * 2.5);
  });

  test("a window of many long turns leaves the oldest out and learns from the rest", async () => {
    const turns = Array.from({ length: 12 }, (_, i) => ({ role: "User", content: `drop-user turn ${i}: ${filler(300, `w${i}x`)}` }));
    turns.push({ role: "User", content: "drop-user says: I am vegan." });
    const requestId = await publish("drop-user", turns);
    expect(await statusOf(requestId)).toMatchObject({ status: "done" });
    expect(await profilesOf("drop-user")).toEqual(["Is vegan"]);
    const prompt = extractionPromptsFor("drop-user").at(-1)!;
    expect(prompt).toMatch(/\[\d+ earlier turns of this window were left out to fit the input budget\]/);
    expect(prompt).not.toContain("drop-user turn 0:");
  });
});

describe("a window that cannot fit is held until an operator recovers it", () => {
  const hugeTurn = (userId: string) => ({ role: "User", content: `${userId}: ${filler(20_000, "z")}` });
  let heldRequest: string;
  let laterRequest: string;

  test("held: its request fails with input_budget_exceeded, and a later window of the user waits behind it", async () => {
    // The last turn alone, even cut, is more than 400 tokens over the fixed prompt: a budget that
    // leaves less than that cannot take any reduction of this window.
    const fixed = await fixedPromptTokens();
    await setBudget(fixed + 300);
    heldRequest = await publish("held-user", [hugeTurn("held-user"), { role: "User", content: `held-user: ${filler(600, "y")}` }]);
    expect(await statusOf(heldRequest)).toMatchObject({ status: "failed", reason: "input_budget_exceeded" });
    await setBudget(BUDGET);
    laterRequest = await publish("held-user", [{ role: "User", content: "held-user: I am vegan." }]);
    expect(await statusOf(laterRequest)).toMatchObject({ status: "pending", reason: expect.stringContaining("held") });
    expect(await profilesOf("held-user")).toEqual([]);
    const listed = (await svc.call("POST", "/api/learning/held_windows", { user_id: "held-user" })).body.held_windows;
    expect(listed).toEqual([
      expect.objectContaining({ user_id: "held-user", extractor: "playbook", request_ids: [heldRequest] }),
      expect.objectContaining({
        user_id: "held-user",
        extractor: "profile",
        from_seq: 1,
        through_seq: 2,
        budget_tokens: fixed + 300,
        request_ids: [heldRequest],
      }),
    ]);
  });

  test("skip: the window is never learned from, the one after it is, and the recovery is recorded", async () => {
    for (const extractor of ["profile", "playbook"]) {
      const skipped = await svc.call("POST", "/api/learning/recover_held_window", { user_id: "held-user", extractor, action: "skip" });
      expect(skipped.status).toBe(200);
      expect(skipped.body).toMatchObject({ success: true, action: "skip", recovered: { through_seq: 2, request_ids: [heldRequest] } });
    }
    await svc.learningIdle();
    expect(await statusOf(laterRequest)).toMatchObject({ status: "done" });
    expect(await profilesOf("held-user")).toEqual(["Is vegan"]);
    const recorded = await svc.db.query(
      "SELECT extractor, action, from_seq, through_seq, actor_ref FROM learning_recoveries WHERE user_id = 'held-user' ORDER BY recovery_id",
    );
    expect(recorded).toEqual([
      { extractor: "profile", action: "skip", from_seq: 1, through_seq: 2, actor_ref: "local" },
      { extractor: "playbook", action: "skip", from_seq: 1, through_seq: 2, actor_ref: "local" },
    ]);
    const again = await svc.call("POST", "/api/learning/recover_held_window", { user_id: "held-user", extractor: "profile", action: "skip" });
    expect(again.status).toBe(404);
  });

  test("retry: a budget not larger than the held one is 422; a larger one learns the window", async () => {
    const fixed = await fixedPromptTokens();
    await setBudget(fixed + 300);
    const requestId = await publish("retry-user", [
      { role: "User", content: "retry-user: I am vegan." },
      // The last turn does not fit even cut; the cut keeps its start, where the fact is.
      { role: "User", content: `retry-user: I have a golden retriever called Biscuit. ${filler(20_000, "q")}` },
    ]);
    expect(await statusOf(requestId)).toMatchObject({ status: "failed", reason: "input_budget_exceeded" });
    const tooSmall = await svc.call("POST", "/api/learning/recover_held_window", {
      user_id: "retry-user",
      extractor: "profile",
      action: "retry",
      budget_tokens: fixed + 300,
    });
    expect(tooSmall.status).toBe(422);
    expect(JSON.stringify(tooSmall.body.detail)).toContain("budget_tokens");
    const missing = await svc.call("POST", "/api/learning/recover_held_window", { user_id: "retry-user", extractor: "profile", action: "retry" });
    expect(missing.status).toBe(422);
    expect((await svc.call("POST", "/api/learning/held_windows", { user_id: "retry-user" })).body.held_windows.length).toBe(2);
    for (const extractor of ["profile", "playbook"]) {
      const retried = await svc.call("POST", "/api/learning/recover_held_window", { user_id: "retry-user", extractor, action: "retry", budget_tokens: 20_000 });
      expect(retried.status).toBe(200);
    }
    await svc.learningIdle();
    expect(await statusOf(requestId)).toMatchObject({ status: "done" });
    expect(await profilesOf("retry-user")).toEqual(["Is vegan", "Owns a golden retriever named Biscuit"]);
    // The larger budget was for that window only.
    const [cursor] = await svc.db.query<any>("SELECT budget_override_tokens FROM learning_cursors WHERE user_id = 'retry-user' AND extractor = 'profile'");
    expect(cursor.budget_override_tokens).toBeNull();
    await setBudget(BUDGET);
  });
});

describe("a budget the configuration cannot meet", () => {
  test("fails with input_budget_configuration_error, backs off, and heals once the budget is fixed", async () => {
    await setBudget(10);
    const requestId = await publish("config-user", [{ role: "User", content: "config-user: I am vegan." }]);
    expect(await statusOf(requestId)).toMatchObject({ status: "failed", reason: "input_budget_configuration_error" });
    const cursorOf = async () =>
      (
        await svc.db.query<{ retry_at: number; attempts: number }>(
          "SELECT retry_at, attempts FROM learning_cursors WHERE user_id = 'config-user' AND extractor = 'profile'",
        )
      )[0]!;
    const first = await cursorOf();
    const firstWait = first.retry_at - svc.clock.now;
    expect(firstWait).toBeGreaterThan(0);
    // Still wrong at the next attempt: the wait doubles (capped at five minutes).
    svc.clock.now = first.retry_at;
    svc.reconciler.schedule("learning", LOCAL_SCOPE, "config-user");
    await svc.learningIdle();
    const second = await cursorOf();
    expect(second.retry_at - svc.clock.now).toBe(Math.min(300, 2 * firstWait));
    expect(second.attempts).toBe(first.attempts + 1);
    await setBudget(BUDGET);
    svc.clock.now = second.retry_at;
    svc.reconciler.schedule("learning", LOCAL_SCOPE, "config-user");
    await svc.learningIdle();
    expect(await statusOf(requestId)).toMatchObject({ status: "done" });
    expect(await profilesOf("config-user")).toEqual(["Is vegan"]);
  });

  test("a model whose context window nobody stated cannot be budgeted", async () => {
    const unknown = await startTestService({
      llm: createLlm({ kind: "openai-compatible", model: "mystery-model", baseUrl: llm.server.baseUrl, apiKey: "sk-test", attempts: 1 }),
    });
    try {
      const published = await unknown.call("POST", "/api/publish_interaction", {
        user_id: "u",
        session_id: "s",
        force_extraction: true,
        interaction_data_list: [{ role: "User", content: "I am vegan." }],
      });
      await unknown.learningIdle();
      expect((await unknown.call("GET", `/api/learning_status?request_id=${published.body.request_id}`)).body).toMatchObject({
        status: "failed",
        reason: "input_budget_configuration_error",
      });
    } finally {
      await unknown.close();
    }
  });
});

describe("what learning costs", () => {
  test("tokens and calls per day, stage and model, summed from every call learning made", async () => {
    const report = await svc.call("POST", "/api/learning/costs", {});
    expect(report.status).toBe(200);
    const extraction = report.body.costs.find((row: any) => row.stage === "profile_extraction");
    const [stored] = await svc.db.query<{ calls: number; input: number }>(
      "SELECT count(*)::int AS calls, sum(input_tokens)::int AS input FROM llm_usage WHERE stage = 'profile_extraction' AND org_id = $1",
      [LOCAL_SCOPE.orgId],
    );
    expect(extraction).toMatchObject({ model: "scripted-model", calls: stored!.calls, input_tokens: stored!.input, cost_usd: null });
    expect(extraction.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(report.body.total_cost_usd).toBe(0);
  });

  test("an inverted or year-long range answers 422 naming start_time", async () => {
    const inverted = await svc.call("POST", "/api/learning/costs", { start_time: 2_000, end_time: 1_000 });
    expect(inverted.status).toBe(422);
    expect(JSON.stringify(inverted.body.detail)).toContain("start_time");
    const tooLong = await svc.call("POST", "/api/learning/costs", { start_time: 0, end_time: 400 * 86_400 });
    expect(tooLong.status).toBe(422);
  });
});

describe("held windows and credentials", () => {
  test("a blank user_id or an unknown extractor answers 422 naming the field", async () => {
    const blank = await svc.call("POST", "/api/learning/recover_held_window", { user_id: "", extractor: "profile", action: "skip" });
    expect(blank.status).toBe(422);
    expect(JSON.stringify(blank.body.detail)).toContain("user_id");
    const unknown = await svc.call("POST", "/api/learning/recover_held_window", { user_id: "x", extractor: "memory", action: "skip" });
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body.detail)).toContain("extractor");
  });
});

/**
 * Input tokens of the profile extraction prompt without any transcript: an earlier extraction's
 * prompt as the model received it, with its <transcript> section emptied (no learnings known yet).
 */
async function fixedPromptTokens(): Promise<number> {
  const earlier = llm.server.requests.find((r) => r.schemaName === "profile_extraction" && r.user.includes("cut-user"))!;
  const user = earlier.user.replace(/<transcript>[\s\S]*<\/transcript>/, "<transcript>\n</transcript>");
  return llm.llm.inputTokens.count(earlier.system) + llm.llm.inputTokens.count(user);
}
