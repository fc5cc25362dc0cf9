import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rerunGeneration } from "@als/core";
import { LOCAL_SCOPE, type Scope } from "@als/db";
import { registerProject } from "@als/test-support/register-project.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// GET /api/get_operation_status: the latest rerun or manual generation of a kind, in the shape the
// peer service's clients poll after rerun_*_generation (which answers the run's id as operation_id).

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
const OTHER_PROJECT: Scope = { orgId: LOCAL_SCOPE.orgId, projectId: "other" };

beforeAll(async () => {
  llm = await startScriptedLlm();
  svc = await startTestService({ llm: llm.llm });
  await registerProject(svc.db, OTHER_PROJECT);
  for (const [userId, content] of [
    ["ana", "I am vegan."],
    ["bo", "I have a golden retriever."],
  ]) {
    expect((await svc.call("POST", "/api/publish_interaction", { user_id: userId, session_id: "s", interaction_data_list: [{ content }] })).status).toBe(200);
  }
  await svc.learningIdle();
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});

const statusOf = async (service_name?: string) =>
  (await svc.call("GET", `/api/get_operation_status${service_name ? `?service_name=${service_name}` : ""}`)).body;

describe("get_operation_status", () => {
  test("with no generation yet, operation_status is null", async () => {
    expect(await statusOf("profile_generation")).toEqual({ success: true, operation_status: null, msg: expect.any(String) });
    expect(await statusOf("playbook_generation")).toMatchObject({ operation_status: null });
  });

  test("a rerun answers its run id as operation_id; the status reports that run, in progress, then completed with its counts", async () => {
    svc.reconciler.stop();
    const rerun = await svc.call("POST", "/api/rerun_profile_generation", { user_id: "ana" });
    expect(rerun.body).toMatchObject({ success: true, operation_id: expect.any(String) });
    const queued = (await statusOf("profile_generation")).operation_status;
    expect(queued).toMatchObject({
      service_name: "profile_generation",
      status: "in_progress",
      started_at: svc.clock.now,
      completed_at: null,
      total_users: 1,
      processed_users: 0,
      request_params: { operation_id: rerun.body.operation_id, kind: "rerun", user_id: "ana" },
      stats: { total_generated: 0 },
      progress_percentage: 0,
    });

    const waited = await rerunGeneration(svc.deps, LOCAL_SCOPE, "profile", { userId: "bo" }, true);
    const done = (await statusOf()).operation_status;
    expect(done).toMatchObject({
      service_name: "profile_generation",
      status: "completed",
      completed_at: svc.clock.now,
      total_users: 1,
      processed_users: 1,
      failed_users: 0,
      request_params: { operation_id: waited.runId, kind: "rerun", user_id: "bo" },
      stats: { total_generated: 1, learnings_created: 1, users: 1 },
      error_message: null,
      progress_percentage: 100,
    });
  });

  test("playbook_generation (and 0.2.8's feedback_generation) report playbook runs only", async () => {
    const rerun = await svc.call("POST", "/api/rerun_playbook_generation", { agent_version: "agent-v0", wait_for_response: true });
    expect(rerun.body).toMatchObject({ success: true, operation_id: expect.any(String), user_playbooks_generated: 0, playbooks_generated: 0 });
    for (const name of ["playbook_generation", "feedback_generation"]) {
      expect((await statusOf(name)).operation_status).toMatchObject({
        service_name: name,
        status: "completed",
        request_params: { operation_id: rerun.body.operation_id, agent_version: "agent-v0" },
      });
    }
    expect((await statusOf("profile_generation")).operation_status.request_params.operation_id).not.toBe(rerun.body.operation_id);
  });

  test("another project's runs are never reported", async () => {
    const elsewhere = await rerunGeneration(svc.deps, OTHER_PROJECT, "profile", {}, false);
    expect((await statusOf("profile_generation")).operation_status.request_params.operation_id).not.toBe(elsewhere.runId);
  });

  test("an unknown service_name or field is a 422 naming it", async () => {
    for (const [query, field] of [
      ["service_name=evaluation", "service_name"],
      ["service_name=", "service_name"],
      ["service_name=profile_generation&operation_id=x", "operation_id"],
    ] as const) {
      const response = await svc.call("GET", `/api/get_operation_status?${query}`);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
  });

  test("the typed client serves it as generation.operationStatus", async () => {
    expect((await svc.client.generation.operationStatus({ service_name: "profile_generation" })).operation_status?.status).toBe("completed");
  });
});
