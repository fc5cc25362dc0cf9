import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { runAggregationStep, startAggregationOperation } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
/** While set, aggregation calls hang until it resolves: an operation caught in the middle. */
let gate: Promise<void> | undefined;
let override: ((request: FakeLlmRequest) => FakeLlmReply | undefined) | undefined;

/** The scripted aggregator: one agent playbook per cluster, unless the cluster restates an approved one. */
async function aggregate(request: FakeLlmRequest): Promise<FakeLlmReply> {
  if (request.schemaName !== "playbook_aggregation") return scriptedReply(request);
  if (gate) await gate;
  const scripted = override?.(request);
  if (scripted) return scripted;
  const members = request.user.split("Cluster of user playbooks:")[1] ?? "";
  const size = (members.match(/^\d+\. trigger:/gm) ?? []).length;
  const approved = request.user.split("Cluster of user playbooks:")[0]!;
  const topic = members.includes("shipping") ? "shipping" : members.includes("refund") ? "refund" : "other";
  return {
    json: {
      restates_approved: approved.toLowerCase().includes(topic),
      playbook_name: `Handle ${topic}`,
      trigger: `The user asks about ${topic}`,
      content: `Follow the ${topic} guidance`,
      rationale: `Seen in ${size} user playbooks`,
      tags: [topic],
    },
  };
}

beforeAll(async () => {
  llm = await startScriptedLlm(aggregate);
  svc = await startTestService({ llm: llm.llm });
});
afterAll(async () => {
  await svc.close();
  await llm.server.close();
});
beforeEach(() => {
  gate = undefined;
  override = undefined;
});

const SHIPPING = [
  { trigger: "The user asks where the parcel is", content: "Give the shipping tracking link and the carrier name" },
  { trigger: "The user asks about the parcel's whereabouts", content: "Share the shipping tracking link and name the carrier" },
  { trigger: "The user wants to know where the parcel is", content: "Send the shipping tracking link with the carrier" },
];
const REFUNDS = [
  { trigger: "The user asks for a refund", content: "Check the order date against the 30-day refund window first" },
  { trigger: "The user requests a refund", content: "Verify the order is within the 30 day refund window" },
];

async function seed(agentVersion: string, playbooks: { trigger: string; content: string }[], user = "u") {
  return addUserPlaybooks(
    svc,
    playbooks.map((p, i) => ({ ...p, user_id: `${user}-${i}`, agent_version: agentVersion })),
  );
}
const start = (body: object) => svc.call("POST", "/api/playbook_aggregation_operations", body);
const receipt = async (id: string) => (await svc.call("GET", `/api/playbook_aggregation_operations/${id}`)).body;
const agentPlaybooksOf = async (agentVersion: string) =>
  (await svc.call("POST", "/api/get_agent_playbooks", { agent_version: agentVersion, playbook_status_filter: ["PENDING", "APPROVED", "REJECTED"] })).body
    .agent_playbooks;
const aggregationCalls = () => llm.server.requests.filter((r) => r.schemaName === "playbook_aggregation").length;

describe("aggregation operations", () => {
  test("202 with a persisted receipt; the operation clusters, summarises each cluster once, and succeeds", async () => {
    const shipping = await seed("v1", SHIPPING, "ship");
    const refunds = await seed("v1", REFUNDS, "refund");
    await seed("v1", [{ trigger: "The user greets", content: "Greet back warmly" }], "lonely");
    const response = await start({ request_id: "req-1", agent_version: "v1" });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ request_id: "req-1", agent_version: "v1", status: "queued", result: null, error_code: null });
    await svc.learningIdle();
    const done = await receipt(response.body.operation_id);
    expect(done).toMatchObject({
      status: "succeeded",
      error_code: null,
      result: { user_playbooks_considered: 6, clusters: 2, clusters_changed: 2, agent_playbooks_created: 2 },
    });
    const created = await agentPlaybooksOf("v1");
    expect(created.map((p: any) => [p.playbook_name, p.playbook_status, p.source_user_playbook_ids]).sort()).toEqual([
      ["Handle refund", "pending", refunds],
      ["Handle shipping", "pending", shipping],
    ]);
    expect(JSON.parse(created[0].playbook_metadata)).toMatchObject({ aggregation_operation_id: response.body.operation_id });
    // Unfiltered reads show approved playbooks only: these wait for a human.
    expect((await svc.call("POST", "/api/get_agent_playbooks", { agent_version: "v1" })).body.agent_playbooks).toEqual([]);
  });

  test("the same request_id and agent_version return the same operation, also after it finished", async () => {
    const first = await start({ request_id: "req-1", agent_version: "v1" });
    expect(first.status).toBe(202);
    expect(first.body.status).toBe("succeeded");
    const again = await start({ request_id: "req-1", agent_version: "v1" });
    expect(again.body.operation_id).toBe(first.body.operation_id);
  });

  test("the same request_id with another agent_version is a 409", async () => {
    const response = await start({ request_id: "req-1", agent_version: "v2" });
    expect(response.status).toBe(409);
    expect(response.body.detail).toContain("req-1");
  });

  test("a cluster whose members did not change is not summarised again; zero output still succeeds", async () => {
    const calls = aggregationCalls();
    const response = await start({ request_id: "req-2", agent_version: "v1" });
    await svc.learningIdle();
    expect(await receipt(response.body.operation_id)).toMatchObject({
      status: "succeeded",
      result: { clusters: 2, clusters_changed: 0, agent_playbooks_created: 0 },
    });
    expect(aggregationCalls()).toBe(calls);
    expect((await agentPlaybooksOf("v1")).length).toBe(2);
  });

  test("a new member changes its cluster, which alone is summarised again", async () => {
    await seed("v1", [{ trigger: "The user asks where their parcel is now", content: "Provide the shipping tracking link and the carrier" }], "ship-late");
    const calls = aggregationCalls();
    const response = await start({ request_id: "req-3", agent_version: "v1" });
    await svc.learningIdle();
    expect((await receipt(response.body.operation_id)).result).toMatchObject({ clusters: 2, clusters_changed: 1, agent_playbooks_created: 1 });
    expect(aggregationCalls()).toBe(calls + 1);
  });

  test("unknown ids and other projects' operations are 404", async () => {
    expect((await svc.call("GET", "/api/playbook_aggregation_operations/nope")).status).toBe(404);
    const elsewhere = await startAggregationOperation(svc.deps, await registerProject(svc.db, { orgId: LOCAL_SCOPE.orgId, projectId: "other" }), {
      request_id: "x",
      agent_version: "v1",
    });
    expect((await svc.call("GET", `/api/playbook_aggregation_operations/${elsewhere.operation_id}`)).status).toBe(404);
  });

  test("validation: request_id and agent_version are required", async () => {
    for (const [body, field] of [
      [{ agent_version: "v1" }, "request_id"],
      [{ request_id: "r" }, "agent_version"],
      [{ request_id: "", agent_version: "v1" }, "request_id"],
    ] as const) {
      const response = await start(body);
      expect({ field, status: response.status }).toEqual({ field, status: 422 });
      expect(response.body.message).toContain(field);
    }
  });
});

describe("operations in flight", () => {
  test("a different request_id while one is unfinished is a 409; deleting a current source cancels it", async () => {
    const sources = await seed("v3", SHIPPING, "v3");
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const first = await start({ request_id: "in-flight", agent_version: "v3" });
    while ((await receipt(first.body.operation_id)).status !== "running") await Bun.sleep(20);
    const second = await start({ request_id: "another", agent_version: "v3" });
    expect(second.status).toBe(409);
    expect((await svc.call("DELETE", "/api/delete_user_playbook", { user_playbook_id: sources[0] })).status).toBe(200);
    release();
    await svc.learningIdle();
    const cancelled = await receipt(first.body.operation_id);
    expect(cancelled).toMatchObject({ status: "failed", error_code: "source_deleted", result: null });
    expect(await agentPlaybooksOf("v3")).toEqual([]);
    // Finished, so a new request may start.
    expect((await start({ request_id: "another", agent_version: "v3" })).status).toBe(202);
    await svc.learningIdle();
  });

  test("an input retired while the run was out stops it from saving; the retry uses what is current", async () => {
    const sources = await seed("v4", [...REFUNDS, { trigger: "The user wants a refund", content: "Check the 30-day refund window for the order" }], "v4");
    let release!: () => void;
    gate = new Promise((resolve) => {
      release = resolve;
    });
    const callsBefore = aggregationCalls();
    const op = await start({ request_id: "retire", agent_version: "v4" });
    // Its own call to the LLM (held by the gate) comes after it read its inputs: an edit from then on retires one.
    while (aggregationCalls() === callsBefore || (await receipt(op.body.operation_id)).status !== "running") await Bun.sleep(20);
    svc.clock.now += 1;
    await svc.call("PUT", "/api/update_user_playbook", { user_playbook_id: sources[2], rationale: "edited while the run was out" });
    release();
    await svc.learningIdle();
    const done = await receipt(op.body.operation_id);
    expect(done.status).toBe("succeeded");
    expect(done.attempts).toBe(2);
    expect((await agentPlaybooksOf("v4")).length).toBe(1);
  });

  test("a worker that died holding an operation is replaced after its lease expires, and the output is saved once", async () => {
    await seed("v5", SHIPPING, "v5");
    const op = await startAggregationOperation(svc.deps, LOCAL_SCOPE, { request_id: "dead-worker", agent_version: "v5" });
    await svc.learningIdle();
    // The operation ran already (the reconciler took it): run a second "worker" that claims it again.
    expect((await receipt(op.operation_id)).status).toBe("succeeded");
    expect(await runAggregationStep(svc.deps, LOCAL_SCOPE, op.operation_id, "late-worker")).toEqual({ next: "done" });
    expect((await agentPlaybooksOf("v5")).length).toBe(1);

    await seed("v6", SHIPPING, "v6");
    // Started without telling the orchestrator, then taken by a worker that dies at once.
    const unscheduled = { ...svc.deps, orchestrator: undefined };
    const stuck = await startAggregationOperation(unscheduled, LOCAL_SCOPE, { request_id: "stuck", agent_version: "v6" });
    await svc.db.query(
      "UPDATE aggregation_operations SET status = 'running', lease_token = 'dead', lease_expires_at = $1, attempts = 1 WHERE operation_id = $2",
      [svc.clock.now + 600, stuck.operation_id],
    );
    svc.reconciler.poke();
    await svc.learningIdle();
    expect((await receipt(stuck.operation_id)).status).toBe("running");
    svc.clock.now += 601;
    try {
      svc.reconciler.poke();
      await svc.learningIdle();
      expect(await receipt(stuck.operation_id)).toMatchObject({ status: "succeeded", attempts: 2 });
      expect((await agentPlaybooksOf("v6")).length).toBe(1);
    } finally {
      svc.clock.now -= 601;
    }
  });
});

describe("failures and approved playbooks", () => {
  test("a provider refusal fails the operation with a safe code only", async () => {
    await seed("v7", REFUNDS, "v7");
    override = () => ({ status: 401, error: { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key sk-test-secret-key" } });
    const op = await start({ request_id: "refused", agent_version: "v7" });
    await svc.learningIdle();
    const failed = await receipt(op.body.operation_id);
    expect(failed).toMatchObject({ status: "failed", error_code: "provider_auth", result: null });
    expect(JSON.stringify(failed)).not.toContain("sk-test");
    expect(JSON.stringify(failed)).not.toContain("refund");
  });

  test("approved agent playbooks are given to the model, which does not restate them", async () => {
    await addAgentPlaybooks(svc, [{ agent_version: "v8", trigger: "Refund requests", content: "Check the refund window", playbook_status: "APPROVED" }]);
    await seed("v8", REFUNDS, "v8");
    const response = await svc.call("POST", "/api/run_playbook_aggregation", { agent_version: "v8" });
    expect(response.status).toBe(200);
    expect(response.body.operation).toMatchObject({ status: "succeeded", result: { clusters: 1, clusters_changed: 1, agent_playbooks_created: 0 } });
    expect(llm.server.requests.at(-1)!.user).toContain("Check the refund window");
    expect((await agentPlaybooksOf("v8")).length).toBe(1);
  });

  test("run_playbook_aggregation answers when the operation has finished", async () => {
    await seed("v9", SHIPPING, "v9");
    const response = await svc.call("POST", "/api/run_playbook_aggregation", { agent_version: "v9", playbook_name: "ignored" });
    expect(response.body).toMatchObject({ success: true, operation: { status: "succeeded", result: { agent_playbooks_created: 1 } } });
    expect(response.body.message).toContain("1 agent playbook");
  });

  test("user playbooks learned from a request published with skip_aggregation are left out", async () => {
    const published = await svc.call("POST", "/api/publish_interaction", {
      user_id: "skipper",
      session_id: "s",
      skip_aggregation: true,
      interaction_data_list: [{ content: "hello" }],
    });
    await addUserPlaybooks(
      svc,
      SHIPPING.map((p, i) => ({ ...p, user_id: `skip-${i}`, agent_version: "v10", request_id: published.body.request_id })),
    );
    const response = await svc.call("POST", "/api/run_playbook_aggregation", { agent_version: "v10" });
    expect(response.body.operation.result).toMatchObject({ user_playbooks_considered: 0, clusters: 0 });
  });
});
