import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_SESSION_INACTIVITY_SECONDS } from "@als/core";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
const LENGTH = 20_000;
/** The window under test: [FROM, FROM + LENGTH); its baseline is the LENGTH before it. */
let FROM: number;

async function publish(source: string, turns: object[]) {
  const sessionId = `overview-${crypto.randomUUID().slice(0, 8)}`;
  const response = await svc.call("POST", "/api/publish_interaction", { user_id: "dee", session_id: sessionId, source, interaction_data_list: turns });
  expect(response.status).toBe(200);
  return sessionId;
}
const ok = [
  { role: "User", content: "Track my order" },
  { role: "Agent", content: "It ships today." },
];
const wrong = [
  { role: "User", content: "Track my order" },
  { role: "Agent", content: "It shipped last year." },
  { role: "User", content: "That is wrong." },
];

beforeAll(async () => {
  scripted = await startScriptedLlm();
  svc = await startTestService({ llm: scripted.llm });
  // One failed session in the baseline window, then four in the window: three succeed.
  FROM = Math.floor(svc.clock.now / 86_400) * 86_400 + 86_400;
  svc.clock.now = FROM - 5_000;
  await publish("chat", wrong);
  svc.clock.now = FROM + 100;
  await publish("chat", ok);
  await publish("chat", [
    { role: "User", content: "Track my order" },
    {
      role: "Agent",
      content: "It ships today.",
      retrieved_learnings: [{ kind: "profile", learning_id: "p-ships" }],
      citations: [{ kind: "profile", learning_id: "p-ships" }],
    },
  ]);
  await publish("", [
    { role: "User", content: "Compare these" },
    { role: "Agent", content: "Answer A", shadow_content: "Answer B" },
    { role: "Agent", content: "Answer C", shadow_content: "Answer D [better]" },
    { role: "Agent", content: "Same", shadow_content: "Same" },
  ]);
  await publish("email", wrong);
  svc.clock.now += DEFAULT_SESSION_INACTIVITY_SECONDS + 1;
  svc.reconciler.poke();
  await svc.learningIdle();
});
afterAll(async () => {
  await svc.close();
  await scripted.server.close();
});

const overview = (body: object) => svc.call("POST", "/api/get_evaluation_overview", { from_ts: FROM, to_ts: FROM + LENGTH, bucket: "day", ...body });

describe("POST /api/get_evaluation_overview", () => {
  test("hero, tiles and score distribution of the window beside its baseline", async () => {
    const response = await overview({});
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.baseline_from_ts).toBe(FROM - LENGTH);
    expect(body.context_tiles.sessions).toEqual({ current: 4, baseline: 1 });
    expect(body.context_tiles.success_rate).toEqual({ current: 0.75, baseline: 0, delta: 0.75 });
    expect(body.context_tiles.escalation_rate.current).toBe(0);
    expect(body.score_distribution).toEqual({
      labels: ["0.0–0.2", "0.2–0.4", "0.4–0.6", "0.6–0.8", "0.8–1.0"],
      current_bins: [0, 1, 0, 0, 3],
      baseline_bins: [0, 1, 0, 0, 0],
    });
    // Days are UTC-aligned, ts in Unix seconds; rates are fractions.
    expect(body.hero.buckets).toEqual([
      { ts: FROM, regular_rate: 0.75, regular_n: 4, shadow_rate: 2 / 3, shadow_n: 3, avg_corrections: 0, escalation_rate: 0 },
    ]);
    expect(body.hero).toMatchObject({ state: "early", regular_success_rate: 0.75, shadow_success_rate: 2 / 3 });
    expect(body.hero.delta).toBeCloseTo(0.75 - 2 / 3);
  });

  test("weekly buckets start on Mondays (UTC)", async () => {
    const body = (await overview({ bucket: "week" })).body;
    const [bucket] = body.hero.buckets;
    expect(new Date(bucket.ts * 1000).getUTCDay()).toBe(1);
    expect(bucket.ts).toBeLessThanOrEqual(FROM);
    expect(bucket.regular_n).toBe(4);
  });

  test("rule attribution: the learnings the sessions were given, and how those sessions ended", async () => {
    const body = (await overview({})).body;
    expect(body.rule_attribution).toEqual([
      { kind: "profile", learning_id: "p-ships", sessions: 1, cited_sessions: 1, successes_with: 1, failures_with: 0, net_sessions: 1, success_rate: 1 },
    ]);
  });

  test("source sets: a session belongs to the set of its first request's source, '' meaning none", async () => {
    const body = (
      await overview({
        source_sets: [
          { label: "Chat", source: "chat" },
          { label: "Unlabelled", source: "" },
        ],
      })
    ).body;
    const comparison = body.source_set_comparison;
    expect(comparison.available_sources).toEqual(["", "chat", "email"]);
    expect(comparison.sets.map((set: any) => [set.label, set.source, set.session_count, set.success_rate])).toEqual([
      ["Chat", "chat", 2, 1],
      ["Unlabelled", "", 1, 1],
    ]);
    expect(comparison.sets[0].context_tiles.sessions).toEqual({ current: 2, baseline: 1 });
    expect(comparison.sets[0].score_distribution.current_bins).toEqual([0, 0, 0, 0, 2]);
    expect(comparison.unmatched_session_count).toBe(1);
    expect(comparison.success_rate_difference).toBe(0);
  });

  test("the shadow win-rate trend: daily UTC buckets ascending, window totals, the pinned judge version only", async () => {
    const trend = (await overview({})).body.shadow_win_rate_trend;
    expect(trend).toEqual({
      daily: [{ date: new Date(FROM * 1000).toISOString().slice(0, 10), n: 3, wins: 1, losses: 1, ties: 1 }],
      window_total: { n: 3, wins: 1, losses: 1, ties: 1, win_rate: 1 / 3, net_win: 0 },
      judge_prompt_version: "v1",
    });
    // Another pinned version: verdicts of v1 are excluded.
    await svc.call("POST", "/api/update_config", { shadow_comparison_judge_prompt_version: "v9" });
    try {
      const other = (await overview({})).body;
      expect(other.shadow_win_rate_trend).toMatchObject({ daily: [], window_total: { n: 0, win_rate: 0, net_win: 0 }, judge_prompt_version: "v9" });
      expect(other.hero.state).toBe("early");
      expect(other.hero.shadow_success_rate).toBeNull();
      expect((await svc.call("GET", "/api/evaluations/shadow_comparisons/recent")).body).toEqual({ verdicts: [], judge_prompt_version: "v9" });
    } finally {
      await svc.call("POST", "/api/update_config", { shadow_comparison_judge_prompt_version: "v1" });
    }
  });

  test("an empty window says so", async () => {
    const body = (await svc.call("POST", "/api/get_evaluation_overview", { from_ts: 1000, to_ts: 2000 })).body;
    expect(body.hero).toEqual({ state: "empty", regular_success_rate: null, shadow_success_rate: null, delta: null, buckets: [] });
    expect(body.context_tiles.success_rate).toEqual({ current: null, baseline: null, delta: null });
    expect(body.score_distribution.current_bins).toEqual([0, 0, 0, 0, 0]);
  });

  test("422 for a window that ends before it starts, repeated labels or sources", async () => {
    for (const [body, message] of [
      [{ from_ts: 10, to_ts: 10 }, "to_ts"],
      [{ from_ts: 0, to_ts: 400 * 86_400 }, "366 days"],
      [
        {
          from_ts: 0,
          to_ts: 10,
          source_sets: [
            { label: "a", source: "x" },
            { label: "a", source: "y" },
          ],
        },
        "labels must be unique",
      ],
      [
        {
          from_ts: 0,
          to_ts: 10,
          source_sets: [
            { label: "a", source: "x" },
            { label: "b", source: "x" },
          ],
        },
        "one source set only",
      ],
      [{ from_ts: 0, to_ts: 10, source_sets: [{ label: "a", source: "Not Valid" }] }, "source"],
    ] as const) {
      const response = await svc.call("POST", "/api/get_evaluation_overview", body);
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body.detail)).toContain(message);
    }
  });
});

describe("GET /api/evaluations/shadow_comparisons/recent", () => {
  test("the N most recent verdicts of the pinned version, newest first, within 30 days", async () => {
    const body = (await svc.call("GET", "/api/evaluations/shadow_comparisons/recent?limit=2")).body;
    expect(body.judge_prompt_version).toBe("v1");
    expect(body.verdicts).toHaveLength(2);
    expect(body.verdicts[0]).toMatchObject({
      judge_prompt_version: "v1",
      user_id: "dee",
      output: { winner: expect.any(String), is_significantly_better: expect.any(Boolean) },
    });
    const all = (await svc.call("GET", "/api/evaluations/shadow_comparisons/recent")).body.verdicts;
    expect(all.map((v: any) => v.output.winner).sort()).toEqual(["regular", "shadow", "tie"]);
    svc.clock.now += 31 * 86_400;
    try {
      expect((await svc.call("GET", "/api/evaluations/shadow_comparisons/recent")).body.verdicts).toEqual([]);
    } finally {
      svc.clock.now -= 31 * 86_400;
    }
    expect((await svc.call("GET", "/api/evaluations/shadow_comparisons/recent?limit=0")).status).toBe(422);
  });
});
