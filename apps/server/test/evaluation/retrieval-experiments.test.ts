import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assignExperimentArm } from "@als/core";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

// The retrieval experiment lifecycle at the peer service's paths, and its results computed from the
// sessions the experiment's requests carried and their reported outcomes.
let svc: TestService;
let other: Tenant;
const base = "/api/retrieval_experiments";

beforeAll(async () => {
  svc = await startTestService();
  other = await createTenant(svc.deps, "bystander");
});
afterAll(() => svc.close());

/** Publishes one session of the user in the experiment (the arm the service assigns) and reports its outcome. */
async function session(experimentId: string, userId: string, outcome: "success" | "failure" | "unknown" | null): Promise<"treatment" | "holdout"> {
  const arm = assignExperimentArm(experimentId, userId, 0.5);
  const sessionId = `${userId}-session`;
  const published = await svc.call("POST", "/api/publish_interaction", {
    user_id: userId,
    session_id: sessionId,
    retrieval_experiment_id: experimentId,
    retrieval_experiment_arm: arm,
    interaction_data_list: [{ role: "User", content: `Where is my order, asks ${userId}?` }],
  });
  expect(published.status).toBe(200);
  if (outcome) {
    const reported = await svc.call("POST", "/api/session_outcome", { session_id: sessionId, outcome, occurred_at: svc.clock.now });
    expect(reported.status).toBe(200);
  }
  return arm;
}

describe("retrieval experiments", () => {
  test("start, one at a time, ids never reused; stop keeps the history", async () => {
    expect((await svc.call("GET", base)).body).toEqual({ active_experiment: null, experiments: [] });
    const started = await svc.call("POST", base, { experiment_id: "exp-a", holdout_percentage: 50 });
    expect(started.status).toBe(200);
    expect(started.body.active_experiment).toEqual({ experiment_id: "exp-a", holdout_percentage: 50, started_at: svc.clock.now, ended_at: null });
    expect((await svc.call("GET", "/api/get_config")).body.retrieval_experiment).toMatchObject({ experiment_id: "exp-a", arm_split: 0.5 });
    for (const body of [
      { experiment_id: "exp-b", holdout_percentage: 20 },
      { experiment_id: "exp-a", holdout_percentage: 50 },
    ]) {
      expect((await svc.call("POST", base, body)).status).toBe(409);
    }
    expect((await svc.call("POST", `${base}/stop`, { experiment_id: "exp-b" })).status).toBe(409);

    svc.clock.now += 60;
    const stopped = await svc.call("POST", `${base}/stop`, { experiment_id: "exp-a" });
    expect(stopped.status).toBe(200);
    expect(stopped.body.active_experiment).toBeNull();
    expect(stopped.body.experiments[0]).toMatchObject({ experiment_id: "exp-a", ended_at: svc.clock.now });
    expect((await svc.call("GET", "/api/get_config")).body.retrieval_experiment).toBeNull();
    expect((await svc.call("POST", base, { experiment_id: "exp-a", holdout_percentage: 50 })).status).toBe(409);
    expect((await svc.call("POST", `${base}/stop`, { experiment_id: "exp-a" })).status).toBe(409);
    expect((await svc.call("GET", `${base}/exp-a`)).body).toMatchObject({ experiment_id: "exp-a", ended_at: svc.clock.now });
  });

  test("results: per-arm success rates with intervals, the lift and a verdict", async () => {
    expect((await svc.call("POST", base, { experiment_id: "exp-results", holdout_percentage: 50 })).status).toBe(200);
    const expected = { treatment: { sessions: 0, graded: 0, successes: 0 }, holdout: { sessions: 0, graded: 0, successes: 0 } };
    for (let index = 0; index < 60; index++) {
      const userId = `user-${index}`;
      const arm = assignExperimentArm("exp-results", userId, 0.5);
      const tally = expected[arm];
      // Treatment succeeds in 9 of 10 sessions, holdout in 3 of 10; every fifth session has no outcome, a few are unknown.
      const outcome = index % 5 === 4 ? null : index % 7 === 6 ? "unknown" : tally.sessions % 10 < (arm === "treatment" ? 9 : 3) ? "success" : "failure";
      await session("exp-results", userId, outcome);
      tally.sessions++;
      if (outcome === "success" || outcome === "failure") tally.graded++;
      if (outcome === "success") tally.successes++;
    }
    const results = await svc.call("GET", `${base}/exp-results/results`);
    expect(results.status).toBe(200);
    for (const arm of ["treatment", "holdout"] as const) {
      const metrics = results.body[arm];
      expect(metrics).toMatchObject({
        arm,
        assigned_user_count: expected[arm].sessions,
        published_session_count: expected[arm].sessions,
        evaluated_session_count: expected[arm].graded,
      });
      expect(metrics.success_rate).toBeCloseTo(expected[arm].successes / expected[arm].graded, 10);
      const [low, high] = metrics.success_rate_ci_95;
      expect(low).toBeLessThan(metrics.success_rate);
      expect(high).toBeGreaterThan(metrics.success_rate);
    }
    const lift = (results.body.treatment.success_rate - results.body.holdout.success_rate) * 100;
    expect(results.body.success_rate_lift_percentage_points).toBeCloseTo(lift, 3);
    const [low, high] = results.body.confidence_interval_95_percentage_points;
    expect(low).toBeGreaterThan(0);
    expect(high).toBeGreaterThan(lift);
    expect(results.body).toMatchObject({ significant: true, verdict: "treatment_better" });
    expect(results.body.evaluated_session_coverage).toBeCloseTo((expected.treatment.graded + expected.holdout.graded) / 60, 10);
  });

  test("results without outcomes say so", async () => {
    expect((await svc.call("POST", `${base}/stop`, { experiment_id: "exp-results" })).status).toBe(200);
    expect((await svc.call("POST", base, { experiment_id: "exp-quiet", holdout_percentage: 25 })).status).toBe(200);
    await session("exp-quiet", "quiet-user", null);
    const results = (await svc.call("GET", `${base}/exp-quiet/results`)).body;
    expect(results.experiment).toMatchObject({ experiment_id: "exp-quiet", holdout_percentage: 25 });
    expect(results).toMatchObject({
      success_rate_lift_percentage_points: null,
      confidence_interval_95_percentage_points: null,
      significant: false,
      verdict: "insufficient_data",
    });
  });

  test("bad input is refused naming the field, and changes nothing", async () => {
    const before = (await svc.call("GET", base)).body;
    for (const [body, field] of [
      [{ experiment_id: "x", holdout_percentage: 0 }, "holdout_percentage"],
      [{ experiment_id: "x", holdout_percentage: 100 }, "holdout_percentage"],
      [{ holdout_percentage: 10 }, "experiment_id"],
      [{ experiment_id: " ", holdout_percentage: 10 }, "experiment_id"],
      [{ experiment_id: "x".repeat(129), holdout_percentage: 10 }, "experiment_id"],
      [{ experiment_id: "x", holdout_percentage: 10, arm: "treatment" }, "arm"],
    ] as const) {
      const response = await svc.call("POST", base, body);
      expect(response.status).toBe(422);
      expect(JSON.stringify(response.body.detail)).toContain(field);
    }
    expect((await svc.call("GET", base)).body).toEqual(before);
    expect((await svc.call("GET", `${base}/no-such`)).status).toBe(404);
    expect((await svc.call("GET", `${base}/no-such/results`)).status).toBe(404);
  });

  test("another organisation sees none of it and cannot stop it", async () => {
    const theirs = bearer(other.fullKey);
    expect((await svc.call("GET", base, undefined, theirs)).body).toEqual({ active_experiment: null, experiments: [] });
    expect((await svc.call("GET", `${base}/exp-quiet`, undefined, theirs)).status).toBe(404);
    expect((await svc.call("GET", `${base}/exp-quiet/results`, undefined, theirs)).status).toBe(404);
    expect((await svc.call("POST", `${base}/stop`, { experiment_id: "exp-quiet" }, theirs)).status).toBe(409);
    expect((await svc.call("GET", base)).body.active_experiment.experiment_id).toBe("exp-quiet");
  });
});
