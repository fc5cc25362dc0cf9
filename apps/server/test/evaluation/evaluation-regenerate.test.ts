import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { holdCall, scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant } from "@als/test-support/tenants.ts";

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

describe("cancelling a regenerate job", () => {
  // A service and model of their own: the model above answers 400 to one session, after which the
  // provider client stops asking for a schema.
  let service: TestService;
  let model: Awaited<ReturnType<typeof startScriptedLlm>>;
  let hold: ReturnType<typeof holdCall> | undefined;
  beforeAll(async () => {
    model = await startScriptedLlm(async (request: FakeLlmRequest) => {
      await hold?.wait(request);
      return scriptedReply(request);
    });
    service = await startTestService({ llm: model.llm });
  });
  afterAll(async () => {
    await service.close();
    await model.server.close();
  });

  const judgeCallsAbout = (text: string) =>
    model.server.requests.filter((request) => request.schemaName === "agent_success_evaluation" && request.user.includes(text)).length;

  /** Three sessions of their own, one second apart, in a window closed at once: [from_ts, to_ts). */
  async function publishWindow(on: TestService, prefix: string, headers: Record<string, string> = {}) {
    const from = on.clock.now;
    for (const n of [1, 2, 3]) {
      const body = { user_id: "eli", session_id: `${prefix}-${n}`, interaction_data_list: [{ role: "User", content: `${prefix} question ${n}` }] };
      expect((await on.call("POST", "/api/publish_interaction", body, headers)).status).toBe(200);
      on.clock.now += 1;
    }
    on.clock.now += 1;
    return { from_ts: from, to_ts: on.clock.now };
  }

  test("a job cancelled in the middle saves nothing after the session in progress, grades no other, and stays cancelled", async () => {
    const window = await publishWindow(service, "cancel-mid");
    hold = holdCall((request) => request.schemaName === "agent_success_evaluation" && request.user.includes("cancel-mid question 2"));
    const start = await service.call("POST", "/api/evaluations/regenerate", window);
    expect(start.body.total).toBe(3);
    service.reconciler.poke();
    await hold.reached;

    const cancelled = await service.call("DELETE", `/api/evaluations/regenerate/${start.body.job_id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ job_id: start.body.job_id, status: "cancelled" });
    hold.release();
    hold = undefined;
    await service.learningIdle();
    service.reconciler.poke();
    await service.learningIdle();

    const status = (await service.call("GET", `/api/evaluations/regenerate/${start.body.job_id}`)).body;
    expect(status).toMatchObject({ status: "cancelled", total: 3, completed: 1, failed: 0, finished_at: expect.any(Number) });
    expect(judgeCallsAbout("cancel-mid question 2")).toBe(1);
    expect(judgeCallsAbout("cancel-mid question 3")).toBe(0);
    const results = (await service.call("POST", "/api/get_agent_success_evaluation_results", { user_id: "eli" })).body.agent_success_evaluation_results;
    const regenerated = results.filter((r: { origin: string; session_id: string }) => r.origin === "regenerate" && r.session_id.startsWith("cancel-mid"));
    expect(regenerated.map((r: { session_id: string }) => r.session_id)).toEqual(["cancel-mid-1"]);
    // Cancelling again changes nothing and says so.
    expect((await service.call("DELETE", `/api/evaluations/regenerate/${start.body.job_id}`)).body).toEqual({ job_id: start.body.job_id, status: "cancelled" });
  });

  test("a finished job answers how it finished and is left so; an unknown job 404; an id too long 422 naming job_id", async () => {
    const window = await publishWindow(service, "cancel-done");
    const start = await service.call("POST", "/api/evaluations/regenerate", window);
    service.reconciler.poke();
    await service.learningIdle();
    const done = (await service.call("GET", `/api/evaluations/regenerate/${start.body.job_id}`)).body;
    expect(done).toMatchObject({ status: "completed", completed: 3 });

    const late = await service.call("DELETE", `/api/evaluations/regenerate/${start.body.job_id}`);
    expect(late.status).toBe(200);
    expect(late.body).toEqual({ job_id: start.body.job_id, status: "completed" });
    expect((await service.call("GET", `/api/evaluations/regenerate/${start.body.job_id}`)).body).toEqual(done);

    const unknown = await service.call("DELETE", "/api/evaluations/regenerate/no-such-job");
    expect(unknown.status).toBe(404);
    const tooLong = await service.call("DELETE", `/api/evaluations/regenerate/${"j".repeat(129)}`);
    expect(tooLong.status).toBe(422);
    expect(JSON.stringify(tooLong.body.detail)).toContain("job_id");
  });

  test("another organisation's credentials cannot cancel a job: 404, and the job runs to its end", async () => {
    const hosted = await startTestService({ llm: model.llm, authMode: "required" });
    try {
      const a = await createTenant(hosted.deps, "regen-a");
      const b = await createTenant(hosted.deps, "regen-b");
      const window = await publishWindow(hosted, "cancel-tenant", bearer(a.fullKey));
      const start = await hosted.call("POST", "/api/evaluations/regenerate", window, bearer(a.fullKey));
      expect(start.status).toBe(200);

      for (const token of [b.fullKey, b.limitedKey, b.loginSession]) {
        const refused = await hosted.call("DELETE", `/api/evaluations/regenerate/${start.body.job_id}`, undefined, bearer(token));
        expect(refused.status).toBe(404);
        expect(JSON.stringify(refused.body)).not.toContain("cancel-tenant");
      }
      hosted.reconciler.poke();
      await hosted.learningIdle();
      const status = (await hosted.call("GET", `/api/evaluations/regenerate/${start.body.job_id}`, undefined, bearer(a.fullKey))).body;
      expect(status).toMatchObject({ status: "completed", total: 3, completed: 3 });
    } finally {
      await hosted.close();
    }
  });
});
