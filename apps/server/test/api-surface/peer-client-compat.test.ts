import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { DEFAULT_PROFILE_DEFINITION, endRetrievalExperiment, startRetrievalExperiment } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { scriptedReply, startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// What the published Python client of the peer service (reflexio-ai 0.2.32 and 0.2.8) sends and
// reads, where the contract leaves the shape open: the bodies below are what those clients post.

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;

beforeAll(async () => {
  // A restatement in other words, for a merge (as in learning.test.ts).
  llm = await startScriptedLlm((request) =>
    request.schemaName === "profile_extraction" && request.user.includes("Biscuit is my retriever")
      ? { json: { profiles: [{ content: "Has a golden retriever called Biscuit", time_to_live: "infinity", tags: [] }] } }
      : scriptedReply(request),
  );
  svc = await startTestService({ llm: llm.llm });
});
afterAll(async () => {
  await svc.close();
  llm.server.close();
});

const ok = async (method: string, path: string, body?: unknown) => {
  const response = await svc.call(method, path, body);
  expect({ path, status: response.status, body: response.status === 200 ? undefined : response.body }).toEqual({ path, status: 200, body: undefined });
  return response.body;
};
async function expect422(path: string, body: unknown, field: string) {
  const response = await svc.call("POST", path, body);
  expect({ field, status: response.status }).toEqual({ field, status: 422 });
  expect(response.body.message).toContain(field);
  return response.body;
}

describe("adding records: the client's whole model is accepted, what is ignored is named", () => {
  test("add_user_profile: read-only and unknown fields that carry a value are named; nulls are not; null status is CURRENT", async () => {
    // reflexio-ai 0.2.32's UserProfile, as add_user_profile posts it.
    const sent = {
      profile_id: "p-peer-1",
      user_id: "ana",
      content: "Prefers window seats",
      last_modified_timestamp: 1795465415,
      generated_from_request_id: "cli-manual",
      profile_time_to_live: "one_month",
      expiration_timestamp: 4102444800,
      custom_features: null,
      source: "cli-manual",
      status: null,
      extractor_names: null,
      expanded_terms: null,
      tags: null,
      source_interaction_ids: [],
      embedding: [],
      source_span: null,
      notes: "seen twice",
    };
    const added = await ok("POST", "/api/add_user_profile", { user_profiles: [sent] });
    expect(added).toMatchObject({ added_count: 1, profile_ids: ["p-peer-1"] });
    expect(added.warnings).toEqual([
      "user_profiles[0]: read-only field(s) ignored (the service sets them): last_modified_timestamp, expiration_timestamp",
      "user_profiles[0]: unknown field(s) ignored: source_interaction_ids, embedding, notes",
    ]);
    const [stored] = (await svc.client.profiles.get({ user_id: "ana" })).user_profiles;
    expect(stored).toMatchObject({
      profile_id: "p-peer-1",
      content: "Prefers window seats",
      status: null,
      source: "cli-manual",
      profile_time_to_live: "one_month",
    });
    expect(stored!.last_modified_timestamp).toBe(svc.clock.now);
    expect(stored!.expiration_timestamp).toBe(svc.clock.now + 30 * 86400);
  });

  test("a clean add answers an empty warnings list", async () => {
    expect((await ok("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "ana", content: "Speaks Portuguese" }] })).warnings).toEqual([]);
  });

  test("add_user_playbook from 0.2.8: structured_data carries trigger and rationale; its other values are named", async () => {
    const sent = {
      user_playbook_id: 0,
      user_id: "bo",
      agent_version: "v1",
      request_id: "",
      playbook_name: "style",
      created_at: 1795465415,
      content: "Keep answers short",
      structured_data: {
        rationale: "The user said so",
        trigger: "Any question",
        instruction: null,
        pitfall: "rambling",
        blocking_issue: null,
        embedding_text: null,
      },
      status: "None",
      source: "",
      source_interaction_ids: [],
      expanded_terms: null,
      embedding: [],
    };
    const added = await ok("POST", "/api/add_user_playbook", { user_playbooks: [sent] });
    expect(added.warnings).toEqual([
      "user_playbooks[0]: read-only field(s) ignored (the service sets them): user_playbook_id, created_at",
      "user_playbooks[0]: unknown field(s) ignored: source_interaction_ids, embedding, structured_data.pitfall",
    ]);
    const [stored] = (await svc.client.userPlaybooks.get({ user_id: "bo" })).user_playbooks;
    expect(stored).toMatchObject({
      user_playbook_id: added.user_playbook_ids[0],
      trigger: "Any question",
      rationale: "The user said so",
      structured_data: { trigger: "Any question", rationale: "The user said so" },
      status: null,
      created_at: svc.clock.now,
    });
  });

  test("structured_data's trigger counts for the content-or-trigger rule; a flat trigger wins over it", async () => {
    const [triggerOnly, flatWins] = (
      await ok("POST", "/api/add_user_playbook", {
        user_playbooks: [
          { user_id: "bo", structured_data: { trigger: "The user is upset" } },
          { user_id: "bo", content: "x", trigger: "flat", structured_data: { trigger: "nested", rationale: "why" } },
        ],
      })
    ).user_playbook_ids;
    const byId = new Map((await svc.client.userPlaybooks.get({ user_id: "bo" })).user_playbooks.map((p) => [p.user_playbook_id, p]));
    expect(byId.get(triggerOnly)).toMatchObject({ trigger: "The user is upset", content: "" });
    expect(byId.get(flatWins)).toMatchObject({ trigger: "flat", rationale: "why" });
    await expect422(
      "/api/add_user_playbook",
      { user_playbooks: [{ user_id: "bo", structured_data: { rationale: "no trigger" } }] },
      "user_playbooks[0].content",
    );
  });

  test('add_agent_playbook: playbook_metadata "" means "{}"; read-only fields are named', async () => {
    const added = await ok("POST", "/api/add_agent_playbook", {
      agent_playbooks: [
        {
          agent_playbook_id: 0,
          playbook_name: "support",
          agent_version: "v1",
          created_at: 0,
          content: "Ask for the order number",
          trigger: "A parcel is missing",
          rationale: "",
          blocking_issue: null,
          playbook_status: "approved",
          playbook_metadata: "",
          expanded_terms: null,
          tags: null,
          embedding: [],
          status: null,
          merged_into: null,
          superseded_by: null,
        },
      ],
    });
    expect(added.warnings).toEqual([
      "agent_playbooks[0]: read-only field(s) ignored (the service sets them): agent_playbook_id, created_at",
      "agent_playbooks[0]: unknown field(s) ignored: embedding",
    ]);
    const [stored] = (await svc.client.agentPlaybooks.get({ agent_version: "v1" })).agent_playbooks;
    expect(stored).toMatchObject({ playbook_metadata: "{}", playbook_status: "approved", status: null });
  });

  test("the fields the service reads keep their rules", async () => {
    await expect422("/api/add_user_profile", { user_profiles: [{ user_id: "u", content: "x", status: "done", embedding: [] }] }, "user_profiles[0].status");
    await expect422("/api/add_agent_playbook", { agent_playbooks: [{ content: "x", playbook_metadata: "[1]" }] }, "agent_playbooks[0].playbook_metadata");
    await expect422(
      "/api/add_user_playbook",
      { user_playbooks: [{ user_id: "u", structured_data: { trigger: 5 } }] },
      "user_playbooks[0].structured_data.trigger",
    );
  });
});

describe('status filters: null and "None" are CURRENT', () => {
  beforeAll(async () => {
    await ok("POST", "/api/add_user_profile", {
      user_profiles: [
        { user_id: "cy", content: "Lives in Porto" },
        { user_id: "cy", content: "Is moving to Berlin", status: "pending" },
        { user_id: "cy", content: "Lived in Madrid", status: "ARCHIVED" },
      ],
    });
    await ok("POST", "/api/add_user_playbook", {
      user_playbooks: [
        { user_id: "cy", content: "Offer express shipping" },
        { user_id: "cy", content: "Offer gift wrapping", status: "PENDING" },
      ],
    });
  });
  const profiles = async (status_filter: unknown[]) =>
    ((await ok("POST", "/api/get_profiles", { user_id: "cy", status_filter })).user_profiles as { content: string }[]).map((p) => p.content).sort();

  test("get_profiles", async () => {
    expect(await profiles([null, "pending"])).toEqual(["Is moving to Berlin", "Lives in Porto"]);
    expect(await profiles(["None"])).toEqual(["Lives in Porto"]);
    expect(await profiles(["none", "archived"])).toEqual(["Lived in Madrid", "Lives in Porto"]);
  });

  test("get_user_playbooks and search_user_playbooks", async () => {
    const got = await ok("POST", "/api/get_user_playbooks", { user_id: "cy", status_filter: ["None"] });
    expect(got.user_playbooks.map((p: { content: string }) => p.content)).toEqual(["Offer express shipping"]);
    const found = await ok("POST", "/api/search_user_playbooks", { user_id: "cy", query: "offer", status_filter: [null], search_mode: "fts" });
    expect(found.user_playbooks.map((p: { content: string }) => p.content)).toEqual(["Offer express shipping"]);
  });

  test("other spellings are still 422s naming the index", async () => {
    await expect422("/api/get_profiles", { user_id: "cy", status_filter: ["None", "nope"] }, "status_filter[1]");
  });
});

describe("updating playbooks from 0.2.8: structured_data", () => {
  test("its trigger and rationale change the playbook; null leaves them; the flat fields win", async () => {
    const [id] = (
      await ok("POST", "/api/add_user_playbook", { user_playbooks: [{ user_id: "dee", content: "Offer a refund", trigger: "The user complains" }] })
    ).user_playbook_ids;
    const update = (body: object) => ok("PUT", "/api/update_user_playbook", { user_playbook_id: id, ...body });
    const stored = async () => (await svc.client.userPlaybooks.get({ user_playbook_id: id })).user_playbooks[0];
    await update({
      playbook_name: null,
      content: null,
      structured_data: {
        rationale: "Refunds settle it",
        trigger: "The parcel arrived damaged",
        instruction: null,
        pitfall: null,
        blocking_issue: null,
        embedding_text: null,
      },
    });
    expect(await stored()).toMatchObject({ trigger: "The parcel arrived damaged", rationale: "Refunds settle it", content: "Offer a refund" });
    await update({ content: "Offer a full refund", structured_data: null });
    expect(await stored()).toMatchObject({ trigger: "The parcel arrived damaged", content: "Offer a full refund" });
    await update({ trigger: "flat", structured_data: { trigger: "nested" } });
    expect((await stored())!.trigger).toBe("flat");
  });

  test("a value this service cannot keep is a 422 naming it, and nothing changes", async () => {
    const [id] = (await ok("POST", "/api/add_agent_playbook", { agent_playbooks: [{ content: "Offer a discount", trigger: "Churn risk" }] }))
      .agent_playbook_ids;
    const response = await svc.call("PUT", "/api/update_agent_playbook", {
      agent_playbook_id: id,
      structured_data: { trigger: "new", pitfall: "being pushy" },
    });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("structured_data.pitfall");
    expect((await svc.client.agentPlaybooks.get({ agent_playbook_id: id, playbook_status_filter: ["PENDING"] })).agent_playbooks[0]!.trigger).toBe(
      "Churn risk",
    );
  });
});

describe("response fields under the client's names", () => {
  test("publish with wait_for_response: counts and storage routing, flat", async () => {
    const published = await ok("POST", "/api/publish_interaction?wait_for_response=true", {
      user_id: "eve",
      session_id: "s",
      force_extraction: true,
      interaction_data_list: [{ content: "I have a golden retriever and I am vegan" }],
    });
    expect(published).toMatchObject({
      learning_status: "done",
      profiles_created: 2,
      profiles_added: 2,
      profiles_updated: 0,
      user_playbooks_created: 0,
      playbooks_added: 0,
      playbooks_updated: 0,
      storage_type: svc.db.kind,
      storage_label: published.storage_routing.storage_label,
    });
  });

  test("publish: profiles_updated counts the profiles a window merged new detail into", async () => {
    const published = await ok("POST", "/api/publish_interaction?wait_for_response=true", {
      user_id: "eve",
      session_id: "s",
      force_extraction: true,
      interaction_data_list: [{ content: "Biscuit is my retriever, remember?" }],
    });
    // The scripted deduplication merges the restatement into "Owns a golden retriever named Biscuit".
    expect(published).toMatchObject({ profiles_created: 0, profiles_added: 0, profiles_updated: 1 });
  });

  test("profile change log: request_id is text, mentioned_profiles a list", async () => {
    await ok("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "fay", content: "Added by hand" }] });
    const [entry] = (await ok("GET", "/api/profile_change_log?user_id=fay")).profile_change_logs;
    expect(entry).toMatchObject({ request_id: "", mentioned_profiles: [] });
  });

  test("delete_session: deleted_requests_count beside deleted_requests", async () => {
    for (const content of ["one", "two"])
      await ok("POST", "/api/publish_interaction", { user_id: "gus", session_id: "gone", interaction_data_list: [{ content }] });
    expect(await ok("DELETE", "/api/delete_session", { session_id: "gone" })).toMatchObject({
      deleted_requests: 2,
      deleted_requests_count: 2,
      deleted_interactions: 2,
    });
  });

  test("whoami: success", async () => {
    expect(await ok("GET", "/api/whoami")).toMatchObject({ success: true, org_id: "local" });
  });

  test("aggregation receipts: completed_at, error, and the result counts under both names", async () => {
    const receipt = await svc.call("POST", "/api/playbook_aggregation_operations", { request_id: "agg-peer", agent_version: "nobody" });
    expect(receipt.status).toBe(202);
    expect(receipt.body).toMatchObject({ status: "queued", error: null, completed_at: null, result: null });
    await svc.learningIdle();
    const done = await ok("GET", `/api/playbook_aggregation_operations/${receipt.body.operation_id}`);
    expect(done).toMatchObject({ status: "succeeded", error: null, completed_at: done.finished_at });
    expect(done.result).toEqual({
      user_playbooks_considered: 0,
      clusters: 0,
      clusters_changed: 0,
      agent_playbooks_created: 0,
      user_playbooks_processed: 0,
      clusters_found: 0,
      playbooks_generated: 0,
    });
  });

  test("review_user_playbooks: reason_code, edit and the counts", async () => {
    const [id] = (await ok("POST", "/api/add_user_playbook", { user_playbooks: [{ user_id: "hal", content: "Added by hand, learned from nothing" }] }))
      .user_playbook_ids;
    const review = await ok("POST", "/api/review_user_playbooks", { start_time: svc.clock.now - 1, end_time: svc.clock.now + 1, top_k: 100 });
    expect(review).toMatchObject({ report_only: true, selected_count: review.results.length, skipped_count: review.results.length, accepted_count: 0 });
    expect(review.results.find((r: { user_playbook_id: number }) => r.user_playbook_id === id)).toMatchObject({
      decision: "skip",
      reason_code: "evidence_unavailable",
      edited: null,
      edit: null,
    });
  });
});

describe("set_config: what the contract names is accepted under the client's names", () => {
  beforeEach(async () => {
    await endRetrievalExperiment(svc.deps, LOCAL_SCOPE);
    await ok("POST", "/api/set_config", {});
  });
  const config = () => ok("GET", "/api/get_config");

  test("get_config shows the prompts in force, the window under 0.2.8's names, the model under the peer's", async () => {
    await ok("POST", "/api/update_config", { window_size: 9, stride_size: 3, llm_config: { model: "m-1" } });
    expect(await config()).toMatchObject({
      window_size: 9,
      stride_size: 3,
      batch_size: 9,
      batch_interval: 3,
      llm_config: { model: "m-1", generation_model_name: "m-1" },
      profile_extractor_config: { extraction_definition_prompt: DEFAULT_PROFILE_DEFINITION },
      agent_success_config: { success_definition_prompt: expect.any(String) },
    });
  });

  test("the built-in prompt saved back keeps following the built-in; another text is the project's own", async () => {
    const shown = await config();
    await ok("POST", "/api/set_config", {
      profile_extractor_config: shown.profile_extractor_config,
      user_playbook_extractor_config: { extraction_definition_prompt: "Mine" },
    });
    const [stored] = await svc.db.query<{ config: Record<string, any> }>("SELECT config FROM project_config");
    expect(stored!.config.profile_extractor_config.extraction_definition_prompt).toBeNull();
    expect(stored!.config.user_playbook_extractor_config.extraction_definition_prompt).toBe("Mine");
  });

  test("0.2.8's batch_size, batch_interval and one-entry extractor lists are ours renamed; ours win when both are sent", async () => {
    await ok("POST", "/api/set_config", {
      batch_size: 12,
      batch_interval: 6,
      profile_extractor_configs: [{ extraction_definition_prompt: "Facts about diet", context_prompt: null }],
      agent_success_configs: null,
    });
    expect(await config()).toMatchObject({ window_size: 12, stride_size: 6, profile_extractor_config: { extraction_definition_prompt: "Facts about diet" } });
    await ok("POST", "/api/update_config", { window_size: 20, batch_size: 30 });
    expect(await config()).toMatchObject({ window_size: 20, batch_size: 20 });
    await expect422("/api/set_config", { profile_extractor_configs: [{}, {}] }, "profile_extractor_configs");
    await expect422("/api/set_config", { batch_size: 0 }, "window_size");
  });

  test("the peer's llm_config and api key config are accepted as the client sends them (null); values it cannot honour are 422s saying why", async () => {
    await ok("POST", "/api/set_config", {
      api_key_config: {
        custom_endpoint: null,
        openai: null,
        anthropic: null,
        openrouter: null,
        gemini: null,
        minimax: null,
        deepseek: null,
        dashscope: null,
        zai: null,
        moonshot: null,
        xai: null,
      },
      llm_config: {
        should_run_model_name: null,
        generation_model_name: "gpt-peer",
        embedding_model_name: null,
        pre_retrieval_model_name: null,
        generation_timeout_seconds: null,
      },
      storage_config: null,
    });
    expect((await config()).llm_config).toEqual({ model: "gpt-peer", temperature: 0, generation_model_name: "gpt-peer" });
    const refused = await expect422("/api/set_config", { api_key_config: { openai: { api_key: "sk-x" } } }, "api_key_config.openai");
    expect(refused.message).toContain("LLM_API_KEY");
    await expect422("/api/set_config", { llm_config: { embedding_model_name: "other-model" } }, "llm_config.embedding_model_name");
    await expect422("/api/update_config", { storage_config: { url: "sqlite://x" } }, "storage_config");
  });

  test("retrieval experiment fields of the peer's config: unchanged is accepted, a change is a 409", async () => {
    await ok("POST", "/api/set_config", { retrieval_experiment_config: null, retrieval_experiment_history: [] });
    const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, { experiment_id: "exp-peer", arm_split: 0.75 });
    await ok("POST", "/api/set_config", { retrieval_experiment_config: { experiment_id: "exp-peer", holdout_percentage: 25 }, window_size: 11 });
    expect(await config()).toMatchObject({ window_size: 11, retrieval_experiment: started });
    for (const body of [
      { retrieval_experiment_config: { experiment_id: "exp-peer", holdout_percentage: 50 } },
      { retrieval_experiment_config: { experiment_id: "another", holdout_percentage: 25 } },
      { retrieval_experiment_history: [{ experiment_id: "old" }] },
    ]) {
      const response = await svc.call("POST", "/api/set_config", body);
      expect(response.status).toBe(409);
      expect(response.body.detail).toContain(Object.keys(body)[0]);
    }
    expect((await config()).retrieval_experiment).toEqual(started);
  });

  test("the whole Config of reflexio-ai 0.2.32 is refused naming exactly the fields the contract does not have", async () => {
    const body = await expect422("/api/set_config", PEER_0_2_32_CONFIG, "storage_config_test");
    const named = (body.detail as { loc: (string | number)[] }[]).map((issue) => issue.loc.slice(1).join(".")).sort();
    expect(named).toEqual(
      [
        "storage_config_test",
        "agent_context_prompt",
        "tool_can_use",
        "extraction_idle_timeout_seconds",
        "retrieval_floor",
        "playbook_optimizer_config",
        "lineage_gc",
        "expiry_reclamation",
        "governance_retention",
        "skip_should_run_check",
        "eval_sample_n_per_stratum",
        "eval_concurrency_limit",
        ...[
          "extractor_name",
          "tagging_definition_prompt",
          "should_extract_profile_prompt_override",
          "request_sources_enabled",
          "manual_trigger",
          "window_size_override",
          "stride_size_override",
        ].map((field) => `profile_extractor_config.${field}`),
        ...["extractor_name", "tagging_definition_prompt", "request_sources_enabled", "window_size_override", "stride_size_override"].map(
          (field) => `user_playbook_extractor_config.${field}`,
        ),
        "user_playbook_extractor_config.aggregation_config.reaggregation_trigger_count",
        "user_playbook_extractor_config.aggregation_config.direction_overlap_threshold",
        "user_playbook_extractor_config.deduplication_config.strategy",
        "user_playbook_extractor_config.deduplication_config.max_unified_content_chars",
        ...["evaluation_name", "tagging_definition_prompt", "request_sources_enabled", "window_size_override", "stride_size_override"].map(
          (field) => `agent_success_config.${field}`,
        ),
      ].sort(),
    );
  });
});

/** What reflexio-ai 0.2.32's set_config posts after get_config of a default project (its Config, dumped in JSON mode). */
const PEER_0_2_32_CONFIG = {
  storage_config: null,
  storage_config_test: 0,
  agent_context_prompt: null,
  tool_can_use: null,
  profile_extractor_config: {
    extractor_name: null,
    extraction_definition_prompt: "P",
    context_prompt: null,
    tagging_definition_prompt: null,
    should_extract_profile_prompt_override: null,
    request_sources_enabled: null,
    manual_trigger: false,
    window_size_override: null,
    stride_size_override: null,
  },
  user_playbook_extractor_config: {
    extractor_name: null,
    extraction_definition_prompt: "U",
    context_prompt: null,
    tagging_definition_prompt: null,
    aggregation_config: { min_cluster_size: 2, reaggregation_trigger_count: 2, clustering_similarity: 0.8, direction_overlap_threshold: 0.6 },
    deduplication_config: { strategy: "legacy", search_threshold: 0.85, search_top_k: 5, max_unified_content_chars: 1200 },
    request_sources_enabled: null,
    window_size_override: null,
    stride_size_override: null,
  },
  agent_success_config: {
    evaluation_name: null,
    success_definition_prompt: "S",
    tagging_definition_prompt: null,
    request_sources_enabled: null,
    sampling_rate: 1.0,
    evaluation_only_sampling_rate: null,
    retrieved_learning_sampling_rate: 1.0,
    window_size_override: null,
    stride_size_override: null,
  },
  extraction_preset: null,
  window_size: 10,
  stride_size: 5,
  extraction_idle_timeout_seconds: 21600,
  api_key_config: {
    custom_endpoint: null,
    openai: null,
    anthropic: null,
    openrouter: null,
    gemini: null,
    minimax: null,
    deepseek: null,
    dashscope: null,
    zai: null,
    moonshot: null,
    xai: null,
  },
  llm_config: {
    should_run_model_name: null,
    generation_model_name: null,
    embedding_model_name: null,
    pre_retrieval_model_name: null,
    generation_timeout_seconds: null,
  },
  retrieval_experiment_config: null,
  retrieval_experiment_history: [],
  retrieval_floor: { enabled: false, pool_size: 30, profile_floor: null, user_playbook_floor: null, agent_playbook_floor: null },
  playbook_optimizer_config: { enabled: false },
  lineage_gc: { enabled: true, tombstone_grace_window_days: 90, poll_interval_seconds: 86400 },
  expiry_reclamation: { enabled: false },
  governance_retention: { audit_events_retention_enabled: false, audit_events_retention_days: 365, audit_events_delete_batch_limit: 500 },
  pending_tool_call_config: { enabled: false },
  skip_should_run_check: false,
  enable_document_expansion: false,
  learning_input_budget_tokens: 24_000,
  shadow_mode_enabled: false,
  eval_sample_n_per_stratum: 200,
  eval_concurrency_limit: 10,
  shadow_comparison_judge_prompt_version: "v1",
};
