import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import {
  DEFAULT_AGGREGATION_DEFINITION,
  DEFAULT_PLAYBOOK_DEFINITION,
  DEFAULT_PROFILE_DEFINITION,
  DEFAULT_SUCCESS_DEFINITION,
  endRetrievalExperiment,
  startRetrievalExperiment,
} from "@als/core";
import { LOCAL_SCOPE, projectConfig } from "@als/db";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

/** The default model's calibrated similarities (scripts/install-model.sh): get_config shows them where a project set none. */
const MODEL = { clustering: 0.94, deduplication: 0.95 };

const DEFAULTS = {
  profile_extractor_config: { extraction_definition_prompt: DEFAULT_PROFILE_DEFINITION, context_prompt: null, allow_manual_trigger: true },
  user_playbook_extractor_config: {
    extraction_definition_prompt: DEFAULT_PLAYBOOK_DEFINITION,
    context_prompt: null,
    aggregation_config: { min_cluster_size: 2, clustering_similarity: MODEL.clustering },
    deduplication_config: { search_threshold: MODEL.deduplication, search_top_k: 5 },
    allow_manual_trigger: true,
  },
  playbook_aggregator_config: { extraction_definition_prompt: DEFAULT_AGGREGATION_DEFINITION },
  deduplication_config: { search_threshold: MODEL.deduplication, search_top_k: 5 },
  agent_success_config: {
    success_definition_prompt: DEFAULT_SUCCESS_DEFINITION,
    sampling_rate: 1,
    evaluation_only_sampling_rate: null,
    retrieved_learning_sampling_rate: 1,
  },
  api_key_config: { enabled: false },
  llm_config: { model: null, temperature: 0 },
  storage_config: null,
  window_size: 10,
  stride_size: 5,
  extraction_preset: null,
  enable_document_expansion: false,
  pending_tool_call_config: { enabled: false },
  learning_input_budget_tokens: 24_000,
  shadow_comparison_judge_prompt_version: "v1",
  retrieval_experiment: null,
  offline_tuner_config: { enabled: false },
};

/** get_config without the fields it repeats under the peer service's names, each checked against the field it repeats. */
function ourNames(config: Awaited<ReturnType<TestService["client"]["config"]["get"]>>) {
  const { batch_size, batch_interval, llm_config, ...rest } = config;
  const { generation_model_name, ...llm } = llm_config;
  expect([batch_size, batch_interval, generation_model_name]).toEqual([rest.window_size, rest.stride_size, llm.model]);
  return { ...rest, llm_config: llm };
}
const getConfig = async () => ourNames(await svc.client.config.get());
const setConfig = (input: ClientInput<"config", "set">) => svc.client.config.set(input);
const updateConfig = (input: ClientInput<"config", "update">) => svc.client.config.update(input);

/** Every test starts from the defaults, with no experiment running. */
beforeEach(async () => {
  await endRetrievalExperiment(svc.deps, LOCAL_SCOPE);
  await setConfig({});
});

/** The request fails with `status`, and the stored configuration is what it was. */
async function expectRejected(path: "/api/set_config" | "/api/update_config", body: unknown, status: number, text: string) {
  await updateConfig({ window_size: 40, stride_size: 7 });
  const before = await getConfig();
  const response = await svc.call("POST", path, body);
  expect(response.status).toBe(status);
  expect(status === 422 ? response.body.message : response.body.detail).toContain(text);
  expect(await getConfig()).toEqual(before);
  return response.body;
}

describe("get_config", () => {
  test("a project that never saved a configuration gets every default, with the offline tuner overlay off", async () => {
    expect(await getConfig()).toEqual(DEFAULTS);
  });

  test("shadow_mode_enabled is never returned", async () => {
    expect(await getConfig()).not.toHaveProperty("shadow_mode_enabled");
  });
});

describe("set_config", () => {
  test("replaces the whole configuration and answers {success, message}", async () => {
    const result = await setConfig({
      profile_extractor_config: { extraction_definition_prompt: "Facts about diet", context_prompt: "A cooking assistant", allow_manual_trigger: false },
      agent_success_config: { sampling_rate: 0.25, evaluation_only_sampling_rate: 0.1, retrieved_learning_sampling_rate: 0.5 },
      llm_config: { model: "gpt-x", temperature: 1.5 },
      window_size: 30,
      stride_size: 12,
      enable_document_expansion: true,
      shadow_comparison_judge_prompt_version: "v2",
    });
    expect(result).toEqual({ success: true, message: expect.any(String) });
    expect(await getConfig()).toEqual({
      ...DEFAULTS,
      profile_extractor_config: { extraction_definition_prompt: "Facts about diet", context_prompt: "A cooking assistant", allow_manual_trigger: false },
      agent_success_config: {
        success_definition_prompt: DEFAULT_SUCCESS_DEFINITION,
        sampling_rate: 0.25,
        evaluation_only_sampling_rate: 0.1,
        retrieved_learning_sampling_rate: 0.5,
      },
      llm_config: { model: "gpt-x", temperature: 1.5 },
      window_size: 30,
      stride_size: 12,
      enable_document_expansion: true,
      shadow_comparison_judge_prompt_version: "v2",
    });
  });

  test("fields the request omits return to their defaults", async () => {
    await setConfig({ window_size: 50, stride_size: 20, llm_config: { model: "gpt-x" }, enable_document_expansion: true });
    await setConfig({ window_size: 50 });
    expect(await getConfig()).toEqual({ ...DEFAULTS, window_size: 50 });
  });

  test("a nested object given in part gets the defaults of the rest", async () => {
    await setConfig({ user_playbook_extractor_config: { aggregation_config: { min_cluster_size: 4 } } });
    const config = await getConfig();
    expect(config.user_playbook_extractor_config).toEqual({
      ...DEFAULTS.user_playbook_extractor_config,
      aggregation_config: { min_cluster_size: 4, clustering_similarity: MODEL.clustering },
    });
  });

  test("clustering similarity and deduplication threshold follow the embedding model unless the project sets them", async () => {
    expect(svc.deps.embedder.calibration).toEqual({ clusteringSimilarity: MODEL.clustering, deduplicationThreshold: MODEL.deduplication });
    const stored = async () => (await projectConfig.readProjectConfig(svc.deps.db, LOCAL_SCOPE)) as Record<string, Record<string, Record<string, unknown>>>;
    // Unset: stored as null (the model's), shown as the model's value.
    expect((await stored()).user_playbook_extractor_config!.aggregation_config!.clustering_similarity).toBeNull();
    expect((await stored()).deduplication_config!.search_threshold).toBeNull();

    await setConfig({
      user_playbook_extractor_config: { aggregation_config: { clustering_similarity: 0.9 }, deduplication_config: { search_threshold: 0.7 } },
      deduplication_config: { search_threshold: 0.6 },
    });
    const chosen = await getConfig();
    expect(chosen.user_playbook_extractor_config.aggregation_config.clustering_similarity).toBe(0.9);
    expect(chosen.user_playbook_extractor_config.deduplication_config.search_threshold).toBe(0.7);
    expect(chosen.deduplication_config.search_threshold).toBe(0.6);

    // Sending the model's own value back (a saved get_config response) keeps following the model.
    await updateConfig({ deduplication_config: { search_threshold: MODEL.deduplication } });
    expect((await stored()).deduplication_config!.search_threshold).toBeNull();
    expect((await getConfig()).deduplication_config.search_threshold).toBe(MODEL.deduplication);
  });

  test("a get_config response saved back as it came changes nothing", async () => {
    await updateConfig({ window_size: 20, llm_config: { model: "m", temperature: 0.3 } });
    await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, { experiment_id: "exp-roundtrip" });
    const before = await getConfig();
    await setConfig(before);
    expect(await getConfig()).toEqual(before);
  });

  test("shadow_mode_enabled is accepted as a retired no-op and never stored", async () => {
    await setConfig({ shadow_mode_enabled: true, window_size: 12 });
    expect(await getConfig()).toEqual({ ...DEFAULTS, window_size: 12 });
  });
});

describe("update_config", () => {
  test("merges the given top-level fields and keeps the rest; answers {success, msg}", async () => {
    await setConfig({ window_size: 30, enable_document_expansion: true });
    const result = await updateConfig({ stride_size: 15, llm_config: { model: "gpt-y" } });
    expect(result).toEqual({ success: true, msg: expect.any(String) });
    expect(await getConfig()).toEqual({
      ...DEFAULTS,
      window_size: 30,
      stride_size: 15,
      enable_document_expansion: true,
      llm_config: { model: "gpt-y", temperature: 0 },
    });
  });

  test("a nested object is replaced whole: its omitted fields return to their defaults", async () => {
    await updateConfig({ agent_success_config: { sampling_rate: 0.3, retrieved_learning_sampling_rate: 0.4 } });
    await updateConfig({ agent_success_config: { evaluation_only_sampling_rate: 0.2 } });
    expect((await getConfig()).agent_success_config).toEqual({
      success_definition_prompt: DEFAULT_SUCCESS_DEFINITION,
      sampling_rate: 1,
      evaluation_only_sampling_rate: 0.2,
      retrieved_learning_sampling_rate: 1,
    });
  });

  test("an empty update changes nothing", async () => {
    await updateConfig({ window_size: 22 });
    await updateConfig({});
    expect((await getConfig()).window_size).toBe(22);
  });

  test("shadow_mode_enabled is accepted as a retired no-op", async () => {
    await updateConfig({ shadow_mode_enabled: false });
    expect(await getConfig()).toEqual(DEFAULTS);
  });

  test("20 concurrent updates of different fields lose none of them", async () => {
    const changes = [
      { window_size: 100 },
      { profile_extractor_config: { extraction_definition_prompt: "profile prompt" } },
      { user_playbook_extractor_config: { context_prompt: "playbook context" } },
      { playbook_aggregator_config: { extraction_definition_prompt: "aggregation prompt" } },
      { llm_config: { model: "model-a" } },
      { agent_success_config: { sampling_rate: 0.5 } },
      { deduplication_config: { search_top_k: 9 } },
      { api_key_config: { enabled: true } },
      { enable_document_expansion: true },
      { shadow_comparison_judge_prompt_version: "v9" },
    ];
    // Each change twice, all at once: every request merges into the whole the previous one left.
    const results = await Promise.all([...changes, ...changes].map((change) => updateConfig(change)));
    expect(results).toHaveLength(20);
    expect(await getConfig()).toMatchObject(Object.assign({}, ...changes));
  });
});

describe("extraction_preset long_form", () => {
  test("set_config stores window 25 and stride 10, winning over window and stride in the same payload", async () => {
    await setConfig({ extraction_preset: "long_form", window_size: 3, stride_size: 2 });
    expect(await getConfig()).toMatchObject({ extraction_preset: "long_form", window_size: 25, stride_size: 10 });
  });

  test("update_config applies it too, and keeps applying it while it is set", async () => {
    await updateConfig({ extraction_preset: "long_form" });
    expect(await getConfig()).toMatchObject({ window_size: 25, stride_size: 10 });
    await updateConfig({ window_size: 60 });
    expect(await getConfig()).toMatchObject({ window_size: 25, stride_size: 10 });
    await updateConfig({ extraction_preset: null, window_size: 60 });
    expect(await getConfig()).toMatchObject({ extraction_preset: null, window_size: 60, stride_size: 10 });
  });

  test("an unknown preset is a 422 naming the field", () => expectRejected("/api/set_config", { extraction_preset: "short_form" }, 422, "extraction_preset"));
});

describe("validation (422 naming the field, nothing changed)", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["unknown top-level field", { window_sizes: 3 }, "window_sizes"],
    ["unknown nested field", { llm_config: { model: "m", top_p: 1 } }, "llm_config.top_p"],
    [
      "unknown deeply nested field",
      { user_playbook_extractor_config: { aggregation_config: { k: 3 } } },
      "user_playbook_extractor_config.aggregation_config.k",
    ],
    ["window_size below 1", { window_size: 0 }, "window_size"],
    ["window_size above 1000", { window_size: 1001 }, "window_size"],
    ["window_size not an integer", { window_size: 2.5 }, "window_size"],
    ["stride_size above window_size", { window_size: 10, stride_size: 11 }, "stride_size"],
    [
      "min_cluster_size below 2",
      { user_playbook_extractor_config: { aggregation_config: { min_cluster_size: 1 } } },
      "user_playbook_extractor_config.aggregation_config.min_cluster_size",
    ],
    ["clustering_similarity above 1", { user_playbook_extractor_config: { aggregation_config: { clustering_similarity: 1.2 } } }, "clustering_similarity"],
    ["search_threshold below 0", { deduplication_config: { search_threshold: -0.1 } }, "deduplication_config.search_threshold"],
    ["search_top_k above 50", { deduplication_config: { search_top_k: 51 } }, "deduplication_config.search_top_k"],
    ["sampling_rate above 1", { agent_success_config: { sampling_rate: 1.5 } }, "agent_success_config.sampling_rate"],
    ["evaluation_only_sampling_rate below 0", { agent_success_config: { evaluation_only_sampling_rate: -1 } }, "evaluation_only_sampling_rate"],
    ["temperature above 2", { llm_config: { temperature: 2.5 } }, "llm_config.temperature"],
    ["storage_config set by a project", { storage_config: { url: "postgres://elsewhere" } }, "storage_config"],
    ["allow_manual_trigger not a boolean", { profile_extractor_config: { allow_manual_trigger: "yes" } }, "profile_extractor_config.allow_manual_trigger"],
    ["a prompt not a string", { playbook_aggregator_config: { extraction_definition_prompt: 5 } }, "playbook_aggregator_config.extraction_definition_prompt"],
    ["a nested object not an object", { llm_config: "gpt" }, "llm_config"],
  ];
  for (const [name, body, field] of cases) {
    test(`set_config: ${name}`, () => expectRejected("/api/set_config", body, 422, field));
    test(`update_config: ${name}`, () => expectRejected("/api/update_config", body, 422, field));
  }

  test("update_config: stride_size above the stored window_size (the merged whole is checked)", async () => {
    const body = await expectRejected("/api/update_config", { stride_size: 41 }, 422, "stride_size");
    expect(body.detail[0].loc).toEqual(["body", "stride_size"]);
  });

  test("update_config: window_size below the stored stride_size", () => expectRejected("/api/update_config", { window_size: 6 }, 422, "stride_size"));

  test("the issue list names the path of an unknown field", async () => {
    const body = await expectRejected("/api/set_config", { llm_config: { top_p: 1 } }, 422, "llm_config.top_p");
    expect(body.detail[0]).toMatchObject({ loc: ["body", "llm_config", "top_p"], msg: "unknown field" });
  });

  test("a body that is not an object is a 422", () => expectRejected("/api/update_config", [1, 2], 422, ""));
});

describe("retrieval_experiment belongs to the experiment lifecycle", () => {
  // An experiment id is never reused once it ended: each test starts one of its own.
  let experiments = 0;
  let EXPERIMENT = { experiment_id: "exp-0", arm_split: 0.3 };
  beforeEach(() => {
    EXPERIMENT = { experiment_id: `exp-${++experiments}`, arm_split: 0.3 };
  });

  test("the lifecycle starts and ends it; get_config shows it", async () => {
    svc.clock.now += 5;
    const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT);
    expect(started).toEqual({ ...EXPERIMENT, started_at: svc.clock.now });
    expect((await getConfig()).retrieval_experiment).toEqual(started);
    expect(await endRetrievalExperiment(svc.deps, LOCAL_SCOPE)).toEqual(started);
    expect((await getConfig()).retrieval_experiment).toBeNull();
  });

  test("starting the running experiment again returns it; starting another is a 409", async () => {
    const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT);
    svc.clock.now += 5;
    expect(await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT)).toEqual(started);
    await expect(startRetrievalExperiment(svc.deps, LOCAL_SCOPE, { experiment_id: "another-experiment" })).rejects.toMatchObject({ status: 409 });
  });

  test("arm_split defaults to an even split", async () => {
    expect((await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, { experiment_id: "exp-even" })).arm_split).toBe(0.5);
  });

  test("set_config that omits it preserves it, while resetting the other fields", async () => {
    const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT);
    await updateConfig({ window_size: 20 });
    await setConfig({ stride_size: 2 });
    expect(await getConfig()).toEqual({ ...DEFAULTS, stride_size: 2, retrieval_experiment: started });
  });

  test("set_config and update_config sending it back unchanged succeed", async () => {
    const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT);
    await setConfig({ retrieval_experiment: started, window_size: 12 });
    await updateConfig({ retrieval_experiment: started, stride_size: 3 });
    expect(await getConfig()).toMatchObject({ retrieval_experiment: started, window_size: 12, stride_size: 3 });
  });

  describe("changing it is a 409 naming retrieval_experiment, and nothing changes", () => {
    for (const path of ["/api/set_config", "/api/update_config"] as const) {
      test(`${path}: starting one`, async () => {
        const body = await expectRejected(
          path,
          { retrieval_experiment: { experiment_id: "mine", started_at: 1 }, window_size: 11 },
          409,
          "retrieval_experiment",
        );
        expect(body.error).toBe("conflict");
      });

      test(`${path}: changing the running one`, async () => {
        const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT);
        await expectRejected(path, { retrieval_experiment: { ...started, arm_split: 0.9 } }, 409, "retrieval_experiment");
        expect((await getConfig()).retrieval_experiment).toEqual(started);
      });

      test(`${path}: ending the running one`, async () => {
        const started = await startRetrievalExperiment(svc.deps, LOCAL_SCOPE, EXPERIMENT);
        await expectRejected(path, { retrieval_experiment: null }, 409, "retrieval_experiment");
        expect((await getConfig()).retrieval_experiment).toEqual(started);
      });
    }
  });

  test("an ill-formed experiment is a 422 before any conflict", () =>
    expectRejected("/api/set_config", { retrieval_experiment: { experiment_id: "x", arm_split: 2, started_at: 1 } }, 422, "retrieval_experiment.arm_split"));
});

describe("offline_tuner_config overlay", () => {
  test("set_config accepts {enabled: false} as a no-op", async () => {
    await setConfig({ offline_tuner_config: { enabled: false }, window_size: 15 });
    expect(await getConfig()).toEqual({ ...DEFAULTS, window_size: 15 });
  });

  test("set_config with {enabled: true} is a 409 with reason config_reset_incomplete", async () => {
    const body = await expectRejected("/api/set_config", { offline_tuner_config: { enabled: true }, window_size: 15 }, 409, "offline_tuner_config");
    expect(body).toMatchObject({ error: "conflict", reason: "config_reset_incomplete" });
    expect((await getConfig()).offline_tuner_config).toEqual({ enabled: false });
  });

  test("set_config rejects unknown fields of the overlay", () =>
    expectRejected("/api/set_config", { offline_tuner_config: { enabled: false, budget: 3 } }, 422, "offline_tuner_config.budget"));

  test("update_config treats the response-only overlay as an unknown key", async () => {
    await expectRejected("/api/update_config", { offline_tuner_config: { enabled: false } }, 422, "offline_tuner_config");
    await expectRejected("/api/update_config", { offline_tuner_config: { enabled: true } }, 422, "offline_tuner_config");
  });
});

describe("tRPC", () => {
  const trpc = async (procedure: string, input?: unknown) => {
    const request =
      input === undefined
        ? new Request(`http://localhost/trpc/${procedure}`)
        : new Request(`http://localhost/trpc/${procedure}`, { method: "POST", body: JSON.stringify(input), headers: { "content-type": "application/json" } });
    const response = await svc.app.handle(request);
    return { status: response.status, body: (await response.json()) as any };
  };

  test("config.get, config.set and config.update serve the same operations", async () => {
    expect((await trpc("config.set", { window_size: 33 })).body.result.data.success).toBe(true);
    expect((await trpc("config.update", { stride_size: 11 })).body.result.data.success).toBe(true);
    const read = await trpc("config.get");
    expect(read.status).toBe(200);
    expect(ourNames(read.body.result.data)).toEqual({ ...DEFAULTS, window_size: 33, stride_size: 11 });
  });

  test("config.update rejects an unknown key with 422", async () => {
    const response = await trpc("config.update", { nope: 1 });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain("nope");
  });
});
