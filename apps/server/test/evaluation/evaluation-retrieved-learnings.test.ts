import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_SESSION_INACTIVITY_SECONDS, diagnosisOf } from "@als/core";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { OUT_OF_SESSION_EVIDENCE_ID, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
let refundPlaybook: number;
let harmfulPlaybook: number;
beforeAll(async () => {
  scripted = await startScriptedLlm();
  svc = await startTestService({ llm: scripted.llm });
  [refundPlaybook = 0, harmfulPlaybook = 0] = await addUserPlaybooks(svc, [
    { user_id: "ana", trigger: "the user asks about refunds", content: "Quote the refund window of thirty days" },
    { user_id: "ana", trigger: "the user is upset", content: "Offer a discount code HARMFUL to margins" },
  ]);
});
afterAll(async () => {
  await svc.close();
  await scripted.server.close();
});

const newSession = () => `learn-eval-${crypto.randomUUID().slice(0, 8)}`;

async function quietFor(seconds: number) {
  svc.clock.now += seconds;
  svc.reconciler.poke();
  await svc.learningIdle();
}

/** A receipt /api/search issued for `sessionId` and the refund playbook. */
async function receiptFor(sessionId: string): Promise<string> {
  const response = await svc.call("POST", "/api/search", { query: "refund window", user_id: "ana", session_id: sessionId, entity_types: ["user_playbooks"] });
  const served = response.body.user_playbooks.find((p: { user_playbook_id: number }) => p.user_playbook_id === refundPlaybook);
  return served.exposure_receipt;
}

async function publish(sessionId: string, turns: object[]) {
  const response = await svc.call("POST", "/api/publish_interaction", { user_id: "ana", session_id: sessionId, interaction_data_list: turns });
  expect(response.status).toBe(200);
}

const learningResults = async (filters: object) => {
  const response = await svc.call("POST", "/api/get_retrieved_learning_evaluation_results", filters);
  expect(response.status).toBe(200);
  return response.body.results as any[];
};

describe("per-learning evaluation", () => {
  test("each learning given to each response gets relevance and impact; only a verified receipt counts as the served version", async () => {
    const sessionId = newSession();
    const receipt = await receiptFor(sessionId);
    await publish(sessionId, [
      { role: "User", content: "What is your refund window?" },
      {
        role: "Agent",
        content: "You can get a refund within thirty days.",
        retrieved_learnings: [
          { kind: "user_playbook", learning_id: String(refundPlaybook), exposure_receipt: receipt },
          { kind: "user_playbook", learning_id: String(harmfulPlaybook) },
        ],
        citations: [{ kind: "user_playbook", learning_id: String(refundPlaybook) }],
      },
      { role: "User", content: "And for a damaged parcel?" },
      {
        role: "Agent",
        content: "Same window.",
        // The same learning on another response is judged on its own.
        retrieved_learnings: [{ kind: "user_playbook", learning_id: String(refundPlaybook), exposure_receipt: "r1.1.forged" }],
      },
    ]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    const rows = await learningResults({ session_id: sessionId });
    expect(rows).toHaveLength(3);
    const [later, cited, harmful] = [
      rows.find((r) => r.learning_id === String(refundPlaybook) && !r.cited),
      rows.find((r) => r.learning_id === String(refundPlaybook) && r.cited),
      rows.find((r) => r.learning_id === String(harmfulPlaybook)),
    ];
    expect(cited).toMatchObject({
      user_id: "ana",
      session_id: sessionId,
      kind: "user_playbook",
      exposure_verified: true,
      is_relevant: true,
      impact: "positive",
      diagnosis: null,
    });
    // A forged receipt and an ID-only reference publish, but their served version is unverified.
    expect(later).toMatchObject({ exposure_verified: false, impact: "neutral" });
    expect(later.interaction_id).not.toBe(cited.interaction_id);
    expect(harmful).toMatchObject({ exposure_verified: false, impact: "negative" });
    // The diagnosis keeps the session's evidence only: the judge's out-of-session id is discarded.
    expect(harmful.diagnosis).toEqual({
      category: "content_defect",
      reason: "the playbook's advice was wrong here",
      evidence_interaction_ids: [harmful.interaction_id],
    });
    expect(harmful.diagnosis.evidence_interaction_ids).not.toContain(OUT_OF_SESSION_EVIDENCE_ID);
    const [usage] = await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM llm_usage WHERE stage = 'retrieved_learning_evaluation'");
    expect(usage!.n).toBeGreaterThan(0);
  });

  test("the stored set is the session's latest evaluation, not a history", async () => {
    const sessionId = newSession();
    await publish(sessionId, [
      { role: "User", content: "refund please" },
      { role: "Agent", content: "Sure.", retrieved_learnings: [{ kind: "user_playbook", learning_id: String(refundPlaybook) }] },
    ]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    const [first] = await learningResults({ session_id: sessionId });
    await publish(sessionId, [{ role: "Agent", content: "Anything else?", retrieved_learnings: [{ kind: "profile", learning_id: "p-1" }] }]);
    await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
    const rows = await learningResults({ session_id: sessionId });
    expect(rows.map((r) => `${r.kind}:${r.learning_id}`).sort()).toEqual([`profile:p-1`, `user_playbook:${refundPlaybook}`]);
    const [stored] = await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM retrieved_learning_evaluations WHERE session_id = $1", [sessionId]);
    expect(stored!.n).toBe(2);
    expect(rows.every((r) => r.result_id !== first.result_id)).toBe(true);
    // A profile is never diagnosed.
    expect(rows.find((r) => r.kind === "profile").diagnosis).toBeNull();
    expect(await learningResults({ kind: "profile", session_id: sessionId })).toHaveLength(1);
  });

  test("retrieved_learning_sampling_rate 0 keeps the session's success grade and makes no per-learning verdicts", async () => {
    await svc.call("POST", "/api/update_config", { agent_success_config: { retrieved_learning_sampling_rate: 0 } });
    try {
      const sessionId = newSession();
      await publish(sessionId, [{ role: "Agent", content: "Hi", retrieved_learnings: [{ kind: "user_playbook", learning_id: String(refundPlaybook) }] }]);
      await quietFor(DEFAULT_SESSION_INACTIVITY_SECONDS + 1);
      expect(await learningResults({ session_id: sessionId })).toEqual([]);
      const graded = (await svc.call("POST", "/api/get_agent_success_evaluation_results", { session_id: sessionId })).body;
      expect(graded.agent_success_evaluation_results).toHaveLength(1);
    } finally {
      await svc.call("POST", "/api/update_config", { agent_success_config: { retrieved_learning_sampling_rate: 1 } });
    }
  });

  test("filters and their validation: an ordered time range, a known kind", async () => {
    expect((await svc.call("POST", "/api/get_retrieved_learning_evaluation_results", { start_time: 10, end_time: 5 })).status).toBe(422);
    const kind = await svc.call("POST", "/api/get_retrieved_learning_evaluation_results", { kind: "document" });
    expect(kind.status).toBe(422);
    expect(JSON.stringify(kind.body.detail)).toContain("kind");
    expect(await learningResults({ user_id: "nobody" })).toEqual([]);
  });
});

describe("PlaybookDiagnosis limits", () => {
  const session = new Set(Array.from({ length: 30 }, (_, i) => i + 1));

  test("at most 20 evidence ids, of the session only, each once", () => {
    const ids = [...Array.from({ length: 30 }, (_, i) => i + 1), 500, 1, 2];
    const diagnosis = diagnosisOf({ category: "application_failure", reason: "applied too late", evidence_interaction_ids: ids }, session);
    expect(diagnosis!.evidence_interaction_ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(diagnosisOf({ category: "unknown", reason: "x", evidence_interaction_ids: [500, 600] }, session)!.evidence_interaction_ids).toEqual([]);
  });

  test("the reason is 1 to 4,000 characters: cut to 4,000, a blank one drops the diagnosis", () => {
    expect(diagnosisOf({ category: "no_issue", reason: "y".repeat(5000), evidence_interaction_ids: [] }, session)!.reason).toHaveLength(4000);
    expect(diagnosisOf({ category: "no_issue", reason: "   ", evidence_interaction_ids: [1] }, session)).toBeNull();
  });
});
