import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { assignExperimentArm, startRetrievalExperiment } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const turn = (content: string, role = "User") => ({ role, content });
const publish = (input: ClientInput<"interactions", "publish">) => svc.client.interactions.publish(input);
/** The raw request: for bodies the typed client would not compile, and for the query-string form of wait_for_response. */
const rawPublish = (body: object, query = "") => svc.call("POST", `/api/publish_interaction${query}`, body);
const allInteractions = async () => (await svc.client.interactions.getAll({ limit: 10000 })).interactions;
const interactionsOf = async (user_id: string, top_k?: number) => (await svc.client.interactions.get({ user_id, top_k })).interactions;

/** Publishes a request that must be refused with 422 naming `field`, and checks that nothing was stored. */
async function expectRefused(body: object, field: string) {
  const before = JSON.stringify(await allInteractions());
  const response = await rawPublish(body);
  expect({ field, status: response.status }).toEqual({ field, status: 422 });
  expect(response.body.message).toContain(field);
  expect(JSON.stringify(await allInteractions())).toBe(before);
  return response.body;
}

describe("publish_interaction", () => {
  test("stores the request's interactions with every default, and answers with the request id and 'deferred'", async () => {
    const published = await publish({ user_id: "ana", session_id: "s-1", interaction_data_list: [turn("I have a golden retriever"), turn("Nice!", "agent")] });
    expect(published).toMatchObject({
      success: true,
      learning_status: "deferred",
      interactions_created: 2,
      profiles_created: 0,
      user_playbooks_created: 0,
      warnings: [],
      storage_routing: { storage_type: svc.db.kind },
    });
    const stored = await interactionsOf("ana");
    expect(stored.map((i) => [i.role, i.content])).toEqual([
      ["Agent", "Nice!"],
      ["User", "I have a golden retriever"],
    ]);
    expect(stored[1]).toMatchObject({
      request_id: published.request_id,
      session_id: "s-1",
      created_at: svc.clock.now,
      shadow_content: "",
      expert_content: "",
      image_encoding: null,
      user_action: "none",
      user_action_description: "",
      interacted_image_url: "",
      tools_used: [],
      citations: [],
      retrieved_learnings: [],
    });
    const requests = (await svc.client.requests.get({ user_id: "ana" })).sessions;
    expect(requests[0]!.requests[0]!.request).toMatchObject({
      request_id: published.request_id,
      source: "",
      agent_version: "agent-v0",
      evaluation_only: false,
    });
  });

  test("drops empty interactions and discards unknown keys, naming both in the warnings", async () => {
    const response = await rawPublish({
      user_id: "ben",
      session_id: "s-2",
      mood: "cheerful",
      interaction_data_list: [turn("keep me"), { content: "   " }, { content: "me too", sentiment: 0.9, lang: "en" }],
    });
    expect(response.status).toBe(200);
    expect(response.body.interactions_created).toBe(2);
    expect(response.body.warnings).toEqual([
      "unknown field(s) discarded: mood",
      "interaction_data_list[2]: unknown field(s) discarded: sentiment, lang",
      "interaction_data_list[1]: empty interaction dropped",
    ]);
    const stored = await interactionsOf("ben");
    expect(stored.map((i) => i.content)).toEqual(["me too", "keep me"]);
    expect(stored[0]).not.toHaveProperty("sentiment");
  });

  test("coerces a tool's status to text and cuts it at 100 characters", async () => {
    await publish({
      user_id: "cy",
      session_id: "s-3",
      interaction_data_list: [
        {
          role: "Agent",
          content: "Looked it up",
          tools_used: [
            { tool_name: "search", tool_data: { input: "q", latency_ms: 12 }, status: true },
            { tool_name: "fetch", tool_data: {}, status: 404 },
            { tool_name: "long", tool_data: {}, status: "x".repeat(150) },
            { tool_name: "none" },
          ],
        },
      ],
    });
    const [stored] = await interactionsOf("cy");
    expect(stored!.tools_used).toEqual([
      { tool_name: "search", tool_data: { input: "q", latency_ms: 12 }, status: "true" },
      { tool_name: "fetch", tool_data: {}, status: "404" },
      { tool_name: "long", tool_data: {}, status: "x".repeat(100) },
      { tool_name: "none", tool_data: {}, status: null },
    ]);
  });

  test("keeps only the digest of an exposure receipt, and whether this service issued it for the session", async () => {
    const [playbookId] = await addUserPlaybooks(svc, [{ user_id: "dee", trigger: "asks about shipping", content: "Quote the shipping address back" }]);
    const search = await svc.client.search.unified({ query: "shipping", user_id: "dee", session_id: "s-4", entity_types: ["user_playbooks"] });
    const receipt: string = search.user_playbooks[0]!.exposure_receipt;
    const learned = (session: string): ClientInput<"interactions", "publish"> => ({
      user_id: "dee",
      session_id: session,
      interaction_data_list: [
        {
          role: "Agent",
          content: "Shipping to 1 Main St?",
          retrieved_learnings: [
            { kind: "user_playbook", learning_id: String(playbookId), exposure_receipt: receipt },
            { kind: "profile", learning_id: "p-1" },
          ],
          citations: [{ kind: "user_playbook", learning_id: playbookId! }],
        },
      ],
    });
    await publish(learned("s-4"));
    await publish(learned("another-session"));
    const [elsewhere, inSession] = await interactionsOf("dee");
    const digest = new Bun.CryptoHasher("sha256").update(receipt).digest("hex");
    expect(inSession!.retrieved_learnings).toEqual([
      { kind: "user_playbook", learning_id: String(playbookId), exposure_receipt_digest: digest, exposure_verified: true },
      { kind: "profile", learning_id: "p-1", exposure_receipt_digest: null, exposure_verified: false },
    ]);
    expect(elsewhere!.retrieved_learnings[0]!.exposure_verified).toBe(false);
    expect(inSession!.citations).toEqual([{ kind: "user_playbook", learning_id: String(playbookId) }]);
    expect(JSON.stringify(inSession)).not.toContain(receipt);
  });

  test("refuses an empty batch naming interaction_data_list", async () => {
    await expectRefused({ user_id: "ana", session_id: "s", interaction_data_list: [] }, "interaction_data_list");
  });

  test("refuses a batch of only empty interactions naming each index", async () => {
    const body = await expectRefused({ user_id: "ana", session_id: "s", interaction_data_list: [{ content: "" }, {}] }, "interaction_data_list[0]");
    expect(body.message).toContain("interaction_data_list[1]");
  });

  test("refuses a user_action without its description, naming the index", async () => {
    await expectRefused(
      { user_id: "ana", session_id: "s", interaction_data_list: [turn("hi"), { user_action: "click" }] },
      "interaction_data_list[1].user_action_description",
    );
    await expectRefused(
      { user_id: "ana", session_id: "s", interaction_data_list: [{ user_action: "dance", user_action_description: "x" }] },
      "interaction_data_list[0].user_action",
    );
  });

  test("refuses image_encoding together with interacted_image_url, naming the index", async () => {
    await expectRefused(
      { user_id: "ana", session_id: "s", interaction_data_list: [{ content: "look", image_encoding: "aGk=", interacted_image_url: "https://x/y.png" }] },
      "interaction_data_list[0].interacted_image_url",
    );
  });

  test("refuses a missing, empty or blank session_id, and a missing user_id", async () => {
    const items = [turn("hi")];
    await expectRefused({ user_id: "ana", interaction_data_list: items }, "session_id");
    await expectRefused({ user_id: "ana", session_id: "", interaction_data_list: items }, "session_id");
    await expectRefused({ user_id: "ana", session_id: "   ", interaction_data_list: items }, "session_id");
    await expectRefused({ session_id: "s", interaction_data_list: items }, "user_id");
    await expectRefused({ user_id: "ana", session_id: "x".repeat(256), interaction_data_list: items }, "session_id");
  });

  test("refuses a source outside the pattern", async () => {
    for (const source of ["Web", "-web", "web app", "x".repeat(129), "café"]) {
      await expectRefused({ user_id: "ana", session_id: "s", source, interaction_data_list: [turn("hi")] }, "source");
    }
    expect((await publish({ user_id: "ana", session_id: "s", source: "web.chat:v2-beta_1", interaction_data_list: [turn("hi")] })).success).toBe(true);
  });

  test("refuses evaluation_only together with force_extraction", async () => {
    await expectRefused(
      { user_id: "ana", session_id: "s", evaluation_only: true, force_extraction: true, interaction_data_list: [turn("hi")] },
      "force_extraction",
    );
  });

  test("refuses a retrieval experiment id without its arm and an arm without its id", async () => {
    await expectRefused({ user_id: "ana", session_id: "s", retrieval_experiment_id: "exp-1", interaction_data_list: [turn("hi")] }, "retrieval_experiment_arm");
    await expectRefused(
      { user_id: "ana", session_id: "s", retrieval_experiment_arm: "treatment", interaction_data_list: [turn("hi")] },
      "retrieval_experiment_id",
    );
  });

  test("accepts an experiment arm only when it is the user's deterministic assignment in the active experiment", async () => {
    const body = (id: string, arm: string) => ({
      user_id: "eve",
      session_id: "s",
      retrieval_experiment_id: id,
      retrieval_experiment_arm: arm,
      interaction_data_list: [turn("hi")],
    });
    await expectRefused(body("exp-1", "treatment"), "retrieval_experiment_id");
    await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, { experiment_id: "exp-1", arm_split: 0.5 });
    const assigned = assignExperimentArm("exp-1", "eve", 0.5);
    const other = assigned === "treatment" ? "holdout" : "treatment";
    await expectRefused(body("exp-1", other), "retrieval_experiment_arm");
    await expectRefused(body("exp-2", assigned), "retrieval_experiment_id");
    await expectRefused(body("exp-1", "control"), "retrieval_experiment_arm");
    expect((await rawPublish(body("exp-1", assigned))).status).toBe(200);
  });

  test("takes wait_for_response from the query string; without a provider it answers 'deferred' and learning_status says what to configure", async () => {
    const started = performance.now();
    const response = await rawPublish(
      { user_id: "fay", session_id: "s", force_extraction: true, interaction_data_list: [turn("I am vegan")] },
      "?wait_for_response=true",
    );
    expect(response.status).toBe(200);
    expect(response.body.learning_status).toBe("deferred");
    expect(performance.now() - started).toBeLessThan(10_000);
    const status = await svc.client.interactions.learningStatus({ request_id: response.body.request_id });
    expect(status).toMatchObject({ success: true, status: "failed" });
    expect(status.reason).toContain("LLM_PROVIDER");
  });

  test("evaluation-only requests are stored but not tracked for learning", async () => {
    const published = await publish({ user_id: "gus", session_id: "s", evaluation_only: true, interaction_data_list: [turn("just judge me")] });
    expect((await svc.client.interactions.learningStatus({ request_id: published.request_id })).status).toBe("not_tracked");
    expect((await svc.client.interactions.learningStatus({ request_id: "nope" })).status).toBe("not_tracked");
  });

  test("concurrent publishes for one user lose nothing and duplicate nothing", async () => {
    const published = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        publish({ user_id: "hal", session_id: `s-${i % 3}`, interaction_data_list: [turn(`message ${i} a`), turn(`message ${i} b`)] }),
      ),
    );
    expect(new Set(published.map((r) => r.request_id)).size).toBe(16);
    const stored = await interactionsOf("hal", 100);
    expect(stored.length).toBe(32);
    expect(new Set(stored.map((i) => i.content)).size).toBe(32);
    const positions = (await svc.db.query<{ seq: number }>("SELECT seq FROM interactions WHERE user_id = 'hal' ORDER BY seq")).map((r) => r.seq);
    expect(positions).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
  });
});
