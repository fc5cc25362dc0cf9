import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeLlmRequest } from "../../../test/support/llm-server.ts";
import { scriptedReply, startScriptedLlm } from "../../../test/support/scripted-llm.ts";
import { startTestService, type TestService } from "../../../test/support/service.ts";

let svc: TestService;
let scripted: Awaited<ReturnType<typeof startScriptedLlm>>;
let windowStart: number;
const sessionIds: string[] = [];
beforeAll(async () => {
  scripted = await startScriptedLlm();
  svc = await startTestService({ llm: scripted.llm });
  windowStart = svc.clock.now;
  // Three sessions in the window; the judge cannot grade the one that says "unjudgeable".
  for (const content of ["first question", "second question", "unjudgeable question"]) {
    const sessionId = `regen-${content.split(" ")[0]}-${crypto.randomUUID().slice(0, 6)}`;
    sessionIds.push(sessionId);
    await svc.call("POST", "/api/publish_interaction", { user_id: "eli", session_id: sessionId, interaction_data_list: [{ role: "User", content }] });
    svc.clock.now += 10;
  }
  svc.clock.now += 100;
  scripted.server.setHandler((request: FakeLlmRequest) =>
    request.schemaName === "agent_success_evaluation" && request.user.includes("unjudgeable")
      ? { status: 400, error: { type: "invalid_request_error", message: "cannot judge" } }
      : scriptedReply(request),
  );
});
afterAll(async () => {
  await svc.close();
  await scripted.server.close();
});

async function finished(jobId: string) {
  for (let i = 0; i < 100; i++) {
    svc.reconciler.poke();
    await svc.learningIdle();
    const status = (await svc.call("GET", `/api/evaluations/regenerate/${jobId}`)).body;
    if (status.status !== "running") return status;
  }
  throw new Error(`job ${jobId} did not finish`);
}

describe("regenerate", () => {
  test("replays the judges over a closed window as a durable job, listing the sessions it could not grade", async () => {
    const start = await svc.call("POST", "/api/evaluations/regenerate", { from_ts: windowStart, to_ts: windowStart + 100, evaluation_name: "rubric v2" });
    expect(start.status).toBe(200);
    expect(start.body).toEqual({ job_id: expect.any(String), total: 3 });
    const status = await finished(start.body.job_id);
    expect(status).toMatchObject({ job_id: start.body.job_id, status: "completed", total: 3, completed: 2, failed: 1, error_code: null });
    expect(status.failures).toEqual([{ session_id: sessionIds[2], reason: "provider_unavailable" }]);
    expect(status.finished_at).toEqual(expect.any(Number));
    const results = (await svc.call("POST", "/api/get_agent_success_evaluation_results", { user_id: "eli" })).body.agent_success_evaluation_results;
    const regenerated = results.filter((r: { origin: string }) => r.origin === "regenerate");
    expect(regenerated.map((r: { session_id: string }) => r.session_id).sort()).toEqual([sessionIds[0], sessionIds[1]].sort());
    expect(regenerated.every((r: { evaluation_name: string }) => r.evaluation_name === "rubric v2")).toBe(true);
  });

  test("a window of the future is not closed: 422; an unknown job: 404", async () => {
    const future = await svc.call("POST", "/api/evaluations/regenerate", { from_ts: windowStart, to_ts: svc.clock.now + 3600 });
    expect(future.status).toBe(422);
    expect(JSON.stringify(future.body.detail)).toContain("to_ts");
    const inverted = await svc.call("POST", "/api/evaluations/regenerate", { from_ts: 100, to_ts: 50 });
    expect(inverted.status).toBe(422);
    expect((await svc.call("GET", "/api/evaluations/regenerate/no-such-job")).status).toBe(404);
  });

  test("without a provider the job ends in error, saying why", async () => {
    const bare = await startTestService();
    try {
      const start = await bare.call("POST", "/api/evaluations/regenerate", { from_ts: 0, to_ts: bare.clock.now });
      bare.reconciler.poke();
      await bare.learningIdle();
      const status = (await bare.call("GET", `/api/evaluations/regenerate/${start.body.job_id}`)).body;
      expect(status).toMatchObject({ status: "error", error_code: "no_llm_provider" });
    } finally {
      await bare.close();
    }
  });
});
