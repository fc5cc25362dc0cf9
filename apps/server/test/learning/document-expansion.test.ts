import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { scriptedExpansion, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { until } from "@als/test-support/server-process.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// With enable_document_expansion, learnings get terms from the LLM (the scripted model's
// thesaurus: refund → reimbursement, replacement → substitute, parcel → shipment, ...) that the
// text arm finds them by. The reconciler's expansion loop runs every two seconds.
const calls: FakeLlmRequest[] = [];
let failing = false;
const { server, llm } = await startScriptedLlm((request) => {
  calls.push(request);
  if (failing) return { status: 500, error: { type: "server_error", message: "the provider is down" } };
  return scriptedExpansion(request);
});
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ llm });
});
afterAll(async () => {
  await svc.close();
  await server.close();
});

const PASS_WAIT_MS = 15_000;
const expansionCalls = () => calls.filter((call) => call.schemaName === "document_expansion").length;

async function agentPlaybooksFound(query: string): Promise<number[]> {
  const response = await svc.call("POST", "/api/search_agent_playbooks", { query, search_mode: "fts" });
  expect(response.status).toBe(200);
  return response.body.agent_playbooks.map((playbook: { agent_playbook_id: number }) => playbook.agent_playbook_id);
}

async function addAgentPlaybook(trigger: string, content: string): Promise<number> {
  const response = await svc.call("POST", "/api/add_agent_playbook", { agent_playbooks: [{ trigger, content }] });
  expect(response.status).toBe(200);
  return response.body.agent_playbook_ids[0];
}

describe("document expansion", () => {
  test("off by default: nothing is sent to the LLM", async () => {
    await addAgentPlaybook("The user is unhappy with a delivery", "Offer a refund");
    // Three passes of the loop.
    await Bun.sleep(6_500);
    expect(expansionCalls()).toBe(0);
    expect(await agentPlaybooksFound("reimbursement")).toEqual([]);
  });

  test("terms find a learning by words it does not hold; an edit drops them until its new terms come", async () => {
    expect((await svc.call("POST", "/api/update_config", { enable_document_expansion: true })).status).toBe(200);
    const id = await addAgentPlaybook("The parcel arrived broken", "Offer a refund");
    const found = await until(async () => ((await agentPlaybooksFound("reimbursement")).includes(id) ? true : undefined), PASS_WAIT_MS);
    expect(found).toBe(true);
    // The playbook of the first test was expanded too: the project enables expansion now.
    expect((await agentPlaybooksFound("reimbursement")).length).toBe(2);
    expect(await agentPlaybooksFound("shipment")).toEqual([id]);

    const edited = await svc.call("PUT", "/api/update_agent_playbook", { agent_playbook_id: id, content: "Send a replacement at once" });
    expect(edited.status).toBe(200);
    // At once: the terms of the former text no longer count for this row.
    expect(await agentPlaybooksFound("reimbursement")).not.toContain(id);
    await until(async () => ((await agentPlaybooksFound("substitute")).includes(id) ? true : undefined), PASS_WAIT_MS);

    const costs = await svc.call("POST", "/api/learning/costs", {});
    expect(costs.status).toBe(200);
    expect(costs.body.costs.map((row: { stage: string }) => row.stage)).toContain("document_expansion");
  }, 40_000);

  test("a failing provider leaves the rows pending and backs off; they are expanded once it answers", async () => {
    failing = true;
    const id = await addAgentPlaybook("A parcel is lost", "Offer a refund or a replacement");
    await until(async () => (calls.at(-1)?.user.includes("A parcel is lost") ? true : undefined), PASS_WAIT_MS);
    await svc.reconciler.idle();
    const afterFailure = expansionCalls();
    // The service's clock stands still, so the project's backoff (5 s of it) does not pass: no calls.
    await Bun.sleep(4_500);
    expect(expansionCalls()).toBe(afterFailure);
    expect(await agentPlaybooksFound("substitute")).not.toContain(id);

    failing = false;
    svc.clock.now += 10;
    await until(async () => ((await agentPlaybooksFound("substitute")).includes(id) ? true : undefined), PASS_WAIT_MS);
  }, 40_000);

  test("every stored kind is expanded, each row once", async () => {
    const before = expansionCalls();
    expect((await svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "ana", content: "Is vegan" }] })).status).toBe(200);
    const users = await svc.call("POST", "/api/add_user_playbook", {
      user_playbooks: [{ user_id: "ana", trigger: "She asks for a refund", content: "Apologise first" }],
    });
    expect(users.status).toBe(200);
    await until(async () => {
      const profiles = await svc.call("POST", "/api/search_profiles", { user_id: "ana", query: "plant based", search_mode: "fts" });
      const playbooks = await svc.call("POST", "/api/search_user_playbooks", { user_id: "ana", query: "money back", search_mode: "fts" });
      return profiles.body.user_profiles.length === 1 && playbooks.body.user_playbooks.length === 1 ? true : undefined;
    }, PASS_WAIT_MS);
    await svc.reconciler.idle();
    const made = expansionCalls() - before;
    // One call per kind that had a row waiting; nothing is asked again on later passes.
    expect(made).toBe(2);
    await Bun.sleep(4_500);
    expect(expansionCalls() - before).toBe(made);
  }, 40_000);
});
