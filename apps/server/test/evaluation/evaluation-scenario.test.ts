import { expect, test } from "bun:test";
import { assignExperimentArm, DEFAULT_SESSION_INACTIVITY_SECONDS } from "@als/core";
import { testMode } from "@als/test-support/database.ts";
import { FAILURE_PHRASES, SATISFIED_PHRASE } from "@als/test-support/scripted-llm.ts";
import { useScriptedService } from "@als/test-support/scripted-service.ts";

// The end-to-end scenario of issue 14: a retrieval experiment with two arms, 200 sessions published
// through the HTTP endpoints and judged by the scripted LLM. Treatment sessions are served a
// playbook; every third session's caller reports its outcome, the treatment's other sessions have
// theirs inferred (the user replies after the playbook was used). Then the evaluation overview and
// the experiment's results are computed and checked against what the sessions were scripted to be.
const service = useScriptedService();

const EXPERIMENT = "exp-scenario";
const SESSIONS = 200;
const PLAYBOOK = "41";
/** Of every ten sessions of an arm, how many the user is satisfied with. */
const SATISFIED_OF_TEN = { treatment: 8, holdout: 5 } as const;

type Arm = keyof typeof SATISFIED_OF_TEN;
interface Planned {
  sessionId: string;
  arm: Arm;
  satisfied: boolean;
  reported: boolean;
}

async function post(path: string, body: object) {
  const response = await service.svc.call("POST", path, body);
  expect(response.status).toBe(200);
  return response.body;
}

/** One session: the question, the answer (with the playbook in the treatment arm), and the user's reply. */
async function runSession(index: number, arm: Arm, satisfied: boolean): Promise<string> {
  const userId = `scenario-user-${index}`;
  const sessionId = `scenario-${index}`;
  const experiment = { retrieval_experiment_id: EXPERIMENT, retrieval_experiment_arm: arm };
  const served = arm === "treatment" ? { retrieved_learnings: [{ kind: "user_playbook", learning_id: PLAYBOOK }] } : {};
  const cited = arm === "treatment" && index % 2 === 0 ? { citations: [{ kind: "user_playbook", learning_id: PLAYBOOK }] } : {};
  await post("/api/publish_interaction", {
    user_id: userId,
    session_id: sessionId,
    source: `app.${arm}`,
    ...experiment,
    interaction_data_list: [
      { role: "User", content: `Order ${index}: how do I export my invoices?` },
      { role: "Agent", content: "Open billing, then export.", ...served, ...cited },
    ],
  });
  await post("/api/publish_interaction", {
    user_id: userId,
    session_id: sessionId,
    source: `app.${arm}`,
    ...experiment,
    interaction_data_list: [{ role: "User", content: satisfied ? SATISFIED_PHRASE : `No, ${FAILURE_PHRASES[0]}.` }],
  });
  return sessionId;
}

const count = (plan: Planned[], keep: (session: Planned) => boolean) => plan.filter(keep).length;

test(`two arms, 200 sessions, outcomes reported and inferred: the overview and the experiment's results (${testMode})`, async () => {
  const startedAt = performance.now();
  const from = service.svc.clock.now;
  await post("/api/retrieval_experiments", { experiment_id: EXPERIMENT, holdout_percentage: 50 });

  const perArm = { treatment: 0, holdout: 0 };
  const plan: Planned[] = [];
  for (let index = 0; index < SESSIONS; index++) {
    const arm = assignExperimentArm(EXPERIMENT, `scenario-user-${index}`, 0.5);
    const satisfied = perArm[arm]++ % 10 < SATISFIED_OF_TEN[arm];
    plan.push({ sessionId: await runSession(index, arm, satisfied), arm, satisfied, reported: index % 3 === 0 });
  }
  // The replies after the playbook was used make the treatment's outcomes due at once.
  service.svc.reconciler.poke();
  await service.svc.learningIdle();
  const inferredFirst = (await post("/api/get_session_outcomes", { top_k: 1000 })).outcomes;
  expect(inferredFirst).toHaveLength(count(plan, (s) => s.arm === "treatment"));
  expect(inferredFirst.every((row: { is_inferred: boolean }) => row.is_inferred)).toBe(true);

  for (const session of plan.filter((s) => s.reported)) {
    const reported = await post("/api/session_outcome", {
      session_id: session.sessionId,
      outcome: session.satisfied ? "success" : "failure",
      occurred_at: service.svc.clock.now,
    });
    expect(reported).toMatchObject({ success: true, recorded: true, outcome_revision: session.arm === "treatment" ? 2 : 1 });
  }
  // Quiet past the session inactivity delay: the agent success judge grades every session.
  service.svc.clock.now += DEFAULT_SESSION_INACTIVITY_SECONDS + 1;
  service.svc.reconciler.poke();
  await service.svc.learningIdle();

  const outcomes = (await post("/api/get_session_outcomes", { top_k: 1000 })).outcomes as { session_id: string; is_inferred: boolean; outcome: string }[];
  const reportedCount = count(plan, (s) => s.reported);
  const inferredCount = count(plan, (s) => s.arm === "treatment" && !s.reported);
  expect(outcomes.filter((row) => !row.is_inferred)).toHaveLength(reportedCount);
  expect(outcomes.filter((row) => row.is_inferred)).toHaveLength(inferredCount);
  const byId = new Map(plan.map((s) => [s.sessionId, s]));
  for (const row of outcomes) expect(row.outcome).toBe(byId.get(row.session_id)!.satisfied ? "success" : "failure");

  // The experiment's results: per arm, the sessions with an outcome (reported or inferred) and their successes.
  const results = (await service.svc.call("GET", `/api/retrieval_experiments/${EXPERIMENT}/results`)).body;
  const expected = (arm: Arm) => {
    const withOutcome = plan.filter((s) => s.arm === arm && (s.reported || arm === "treatment"));
    return { sessions: count(plan, (s) => s.arm === arm), graded: withOutcome.length, successes: count(withOutcome, (s) => s.satisfied) };
  };
  for (const arm of ["treatment", "holdout"] as const) {
    const want = expected(arm);
    expect(results[arm]).toMatchObject({ arm, published_session_count: want.sessions, evaluated_session_count: want.graded });
    expect(results[arm].success_rate).toBeCloseTo(want.successes / want.graded, 10);
  }
  const lift = (results.treatment.success_rate - results.holdout.success_rate) * 100;
  expect(results.success_rate_lift_percentage_points).toBeCloseTo(lift, 2);
  expect(results.significant).toBe(results.confidence_interval_95_percentage_points[0] > 0 || results.confidence_interval_95_percentage_points[1] < 0);

  // The evaluation overview: every session graded by the judge, one source set per arm.
  const overview = await post("/api/get_evaluation_overview", {
    from_ts: from,
    to_ts: from + 3_600,
    bucket: "day",
    source_sets: [
      { label: "treatment", source: "app.treatment" },
      { label: "holdout", source: "app.holdout" },
    ],
  });
  const satisfiedAll = count(plan, (s) => s.satisfied);
  expect(overview.context_tiles.sessions.current).toBe(SESSIONS);
  expect(overview.context_tiles.success_rate.current).toBeCloseTo(satisfiedAll / SESSIONS, 10);
  expect(overview.hero).toMatchObject({ state: "shadow_off" });
  const armRate = (arm: Arm) => count(plan, (s) => s.arm === arm && s.satisfied) / count(plan, (s) => s.arm === arm);
  const [treatmentSet, holdoutSet] = overview.source_set_comparison.sets;
  expect(treatmentSet).toMatchObject({ label: "treatment", session_count: count(plan, (s) => s.arm === "treatment") });
  expect(treatmentSet.success_rate).toBeCloseTo(armRate("treatment"), 10);
  expect(holdoutSet.success_rate).toBeCloseTo(armRate("holdout"), 10);
  expect(overview.source_set_comparison.success_rate_difference).toBeCloseTo(armRate("treatment") - armRate("holdout"), 10);
  const treatmentSessions = count(plan, (s) => s.arm === "treatment");
  const treatmentSatisfied = count(plan, (s) => s.arm === "treatment" && s.satisfied);
  expect(overview.rule_attribution).toEqual([
    {
      kind: "user_playbook",
      learning_id: PLAYBOOK,
      sessions: treatmentSessions,
      cited_sessions: expect.any(Number),
      successes_with: treatmentSatisfied,
      failures_with: treatmentSessions - treatmentSatisfied,
      net_sessions: 2 * treatmentSatisfied - treatmentSessions,
      success_rate: treatmentSatisfied / treatmentSessions,
    },
  ]);

  const pct = (value: number | null) => (value === null ? "-" : `${(value * 100).toFixed(1)}%`);
  const interval = (ci: [number, number] | null) => (ci ? `[${pct(ci[0])}, ${pct(ci[1])}]` : "-");
  console.log(`\nevaluation scenario (${testMode}): ${SESSIONS} sessions, ${reportedCount} outcomes reported, ${inferredCount} inferred`);
  console.table({
    treatment: {
      sessions: results.treatment.published_session_count,
      "with outcome": results.treatment.evaluated_session_count,
      "outcome success": pct(results.treatment.success_rate),
      "95% CI": interval(results.treatment.success_rate_ci_95),
      "judged success (overview)": pct(treatmentSet.success_rate),
    },
    holdout: {
      sessions: results.holdout.published_session_count,
      "with outcome": results.holdout.evaluated_session_count,
      "outcome success": pct(results.holdout.success_rate),
      "95% CI": interval(results.holdout.success_rate_ci_95),
      "judged success (overview)": pct(holdoutSet.success_rate),
    },
  });
  console.log(
    `lift ${results.success_rate_lift_percentage_points.toFixed(1)} pp, 95% CI [${results.confidence_interval_95_percentage_points.map((v: number) => v.toFixed(1)).join(", ")}] pp, ` +
      `verdict ${results.verdict}; overview: ${overview.context_tiles.sessions.current} graded, success rate ${pct(overview.context_tiles.success_rate.current)}, ` +
      `playbook ${PLAYBOOK} in ${overview.rule_attribution[0].sessions} sessions (${pct(overview.rule_attribution[0].success_rate)} success); ` +
      `${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  );
}, 120_000);
