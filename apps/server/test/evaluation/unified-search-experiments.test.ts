import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { assignExperimentArm, endRetrievalExperiment, startRetrievalExperiment } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let reformulate: (request: FakeLlmRequest) => FakeLlmReply | Promise<FakeLlmReply>;

beforeAll(async () => {
  llm = await startScriptedLlm((request) => reformulate(request));
  svc = await startTestService({ llm: llm.llm });
  await addUserPlaybooks(svc, [{ user_id: "ana", trigger: "The user plans a trip", content: "Ask for passport expiry dates before booking flights" }]);
  await addAgentPlaybooks(svc, [{ trigger: "Refund requests", content: "Check the order date before promising a refund", playbook_status: "APPROVED" }]);
  await svc.client.profiles.add({ user_profiles: [{ user_id: "ana", content: "Is flying to Japan in May" }] });
});
afterAll(async () => {
  await svc.close();
  await llm.server.close();
});

const search = (input: ClientInput<"search", "unified">) => svc.client.search.unified(input);

describe("query reformulation", () => {
  test("rewrites the query with the conversation for context and returns what it searched with", async () => {
    reformulate = (request) => ({ text: request.user.includes("Japan") ? "passport requirements for a flight to Japan" : "unexpected" });
    const result = await search({
      query: "what do I need for it?",
      user_id: "ana",
      enable_reformulation: true,
      conversation_history: [{ role: "user", content: "I am flying to Japan next month" }],
    });
    expect(result.reformulated_query).toBe("passport requirements for a flight to Japan");
    expect(result.user_playbooks[0]!.content).toBe("Ask for passport expiry dates before booking flights");
    expect(result.degradation).toBeNull();
    expect(llm.server.requests.at(-1)!.user).toContain("I am flying to Japan next month");
  });

  test("a failing provider degrades the search to the original query instead of failing it", async () => {
    reformulate = () => ({ status: 400, error: { type: "invalid_request_error", message: "bad" } });
    const result = await search({ query: "passport flights", user_id: "ana", enable_reformulation: true });
    expect(result.reformulated_query).toBeNull();
    expect(result.degradation).toEqual({ degraded: true, components: [{ component: "reformulation", reason: "reformulation_failed" }] });
    expect(result.user_playbooks.length).toBe(1);
  });

  test("a slow provider is given up on within the search's deadline", async () => {
    reformulate = () => new Promise((resolve) => setTimeout(() => resolve({ text: "too late" }), 4000));
    const started = performance.now();
    const result = await search({ query: "passport flights", user_id: "ana", enable_reformulation: true });
    expect(performance.now() - started).toBeLessThan(4000);
    expect(result.degradation?.components).toEqual([{ component: "reformulation", reason: "reformulation_timeout" }]);
  });

  test("the entity searches reformulate too", async () => {
    reformulate = () => ({ text: "refund order date" });
    const result = await svc.client.agentPlaybooks.search({ query: "money back?", enable_reformulation: true });
    expect(result.agent_playbooks[0]!.content).toBe("Check the order date before promising a refund");
  });
});

describe("partial results", () => {
  test("an entity type whose search fails is left out and named; the others are served", async () => {
    await svc.db.exec("ALTER TABLE agent_playbooks RENAME TO agent_playbooks_away");
    try {
      const result = await search({ query: "passport flights", user_id: "ana" });
      expect(result.agent_playbooks).toEqual([]);
      expect(result.user_playbooks.length).toBe(1);
      expect(result.degradation).toEqual({ degraded: true, components: [{ component: "agent_playbooks", reason: "search_failed" }] });
      await expect(search({ query: "refunds", entity_types: ["agent_playbooks"] })).rejects.toMatchObject({ status: 500 });
    } finally {
      await svc.db.exec("ALTER TABLE agent_playbooks_away RENAME TO agent_playbooks");
    }
  });
});

describe("retrieval experiments", () => {
  test("while an experiment runs, search needs user_id and reports the user's deterministic arm", async () => {
    await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, { experiment_id: "exp-search", arm_split: 0.5 });
    try {
      await expect(search({ query: "refunds" })).rejects.toMatchObject({ status: 422, message: expect.stringContaining("user_id") });

      const users = Array.from({ length: 40 }, (_, i) => `user-${i}`);
      const arms = await Promise.all(users.map((user) => search({ query: "refunds", user_id: user })));
      for (const [index, body] of arms.entries()) {
        const expected = assignExperimentArm("exp-search", users[index]!, 0.5);
        expect(body.experiment).toEqual({ experiment_id: "exp-search", arm: expected });
        // Holdout users are served no learnings; treatment users get the approved agent playbook.
        expect(body.agent_playbooks.length).toBe(expected === "treatment" ? 1 : 0);
      }
      const inTreatment = arms.filter((body) => body.experiment?.arm === "treatment").length;
      expect(inTreatment).toBeGreaterThan(8);
      expect(inTreatment).toBeLessThan(32);
    } finally {
      await endRetrievalExperiment(svc.deps, LOCAL_SCOPE);
    }
    expect((await search({ query: "refunds" })).experiment).toBeNull();
  });

  test("the assignment is the same in another process", async () => {
    const users = Array.from({ length: 50 }, (_, i) => `person-${i}`);
    const script = `import { assignExperimentArm } from "@als/core"; console.log(JSON.stringify(${JSON.stringify(users)}.map((u) => assignExperimentArm("exp-x", u, 0.3))));`;
    const child = Bun.spawn(["bun", "-e", script], { cwd: new URL("../../../../", import.meta.url).pathname, stdout: "pipe" });
    const elsewhere = JSON.parse(await new Response(child.stdout).text());
    expect(elsewhere).toEqual(users.map((u) => assignExperimentArm("exp-x", u, 0.3)));
  });
});
