import { z } from "zod";
import { UnixSeconds } from "./common.ts";

const Fraction = z.number().min(0).max(1);
/**
 * A prompt of an extractor or the aggregator; null means the built-in default prompt. get_config
 * shows the text in force, and saving the built-in text back stores null again, so a round trip
 * does not pin the project to today's built-in prompt.
 */
const Prompt = z.string().nullable().default(null);
/** The text of a prompt in force, as get_config shows it (clients of the peer service require text). */
const EffectivePrompt = z
  .string()
  .describe("The prompt in force: the project's own, else the built-in one (saving the built-in text back keeps following the built-in)");

/**
 * A field of the peer service's configuration this service has no use for. Its clients send it as
 * null, which means omitted; a value is refused, saying why, rather than stored and silently ignored.
 */
const notSupported = (why: string) => z.never({ error: why }).optional().describe(`Accepted as null for clients of the peer service; ${why}`);

/**
 * A cosine similarity whose meaning depends on the embedding model (unrelated texts sit near 0.1 for
 * MiniLM, near 0.7 for e5); null follows the model's own calibrated value (its manifest), which
 * get_config shows in its place.
 */
const ModelSimilarity = (what: string) => Fraction.nullable().default(null).describe(`${what}; null: the embedding model's calibrated default`);

export const DeduplicationConfig = z
  .object({
    search_threshold: ModelSimilarity("Similarity above which stored learnings are deduplication candidates of a new one"),
    search_top_k: z.number().int().min(1).max(50).default(5),
  })
  .strict();

export const ProfileExtractorConfig = z
  .object({
    extraction_definition_prompt: Prompt,
    context_prompt: Prompt,
    allow_manual_trigger: z.boolean().default(true),
  })
  .strict();

export const UserPlaybookExtractorConfig = z
  .object({
    extraction_definition_prompt: Prompt,
    context_prompt: Prompt,
    aggregation_config: z
      .object({
        min_cluster_size: z.number().int().min(2).default(2),
        clustering_similarity: ModelSimilarity("Average-linkage similarity at which user playbooks cluster"),
      })
      .strict()
      .prefault({}),
    deduplication_config: DeduplicationConfig.prefault({}),
    allow_manual_trigger: z.boolean().default(true),
  })
  .strict();

export const PlaybookAggregatorConfig = z.object({ extraction_definition_prompt: Prompt }).strict();

export const AgentSuccessConfig = z
  .object({
    /** What a successful session is, for the agent success judge; null: the built-in definition. */
    success_definition_prompt: Prompt,
    sampling_rate: Fraction.default(1).describe("Share of sessions the agent success judge grades, after the session inactivity delay"),
    evaluation_only_sampling_rate: Fraction.nullable().default(null).describe("Share of evaluation_only sessions graded; null: sampling_rate"),
    retrieved_learning_sampling_rate: Fraction.default(1).describe(
      "Share of sessions whose retrieved learnings get per-learning relevance and impact verdicts",
    ),
  })
  .strict();

const PER_PROJECT_CREDENTIALS = "the LLM provider and its key are the deployment's (LLM_PROVIDER, LLM_API_KEY), not a project's";
/** The provider credentials of the peer service's api key config (its clients send them all, null when unset). */
const PEER_PROVIDER_KEYS = [
  "custom_endpoint",
  "openai",
  "anthropic",
  "openrouter",
  "gemini",
  "minimax",
  "deepseek",
  "dashscope",
  "zai",
  "moonshot",
  "xai",
] as const;

export const ApiKeyConfig = z
  .object({
    /** Whether the project's requests must carry an API key (hosted mode; a local server needs none). */
    enabled: z.boolean().default(false),
    ...Object.fromEntries(PEER_PROVIDER_KEYS.map((key) => [key, notSupported(PER_PROJECT_CREDENTIALS)])),
  })
  .strict();

const ONE_MODEL = "this service sends every LLM call of a project to one model (llm_config.model)";

/** The model settings, with the peer service's names: generation_model_name is model's. */
const llmConfigFields = {
  /** null: the deployment's LLM_MODEL. */
  model: z.string().min(1).nullable().default(null),
  temperature: z.number().min(0).max(2).default(0),
  should_run_model_name: notSupported(ONE_MODEL),
  embedding_model_name: notSupported("the embedding model is the deployment's (EMBEDDING_PROVIDER, EMBEDDING_MODEL)"),
  pre_retrieval_model_name: notSupported(ONE_MODEL),
  generation_timeout_seconds: notSupported("each LLM call is bounded by the deployment's provider settings"),
};

export const LlmConfig = z.preprocess(
  (value) => renamed(value, [["generation_model_name", "model"]]),
  z
    .object({
      ...llmConfigFields,
      generation_model_name: z.string().min(1).optional().describe("model under the name clients of the peer service use; model wins when both are sent"),
    })
    .strict()
    .transform(({ generation_model_name: _renamed, ...config }) => config),
);

/** llm_config as get_config shows it: model also under the peer service's name. */
const LlmConfigView = z.object({
  model: z.string().nullable(),
  temperature: z.number(),
  generation_model_name: z.string().nullable().describe("model again, under the name clients of the peer service read"),
});

/**
 * `value` with each old field name's value moved to its new name when the new one is not given
 * (absent or null): the names older clients of the peer service use for fields of ours. When both
 * are given, the old one stays, to be validated and dropped; the new one wins.
 */
function renamed(value: unknown, renames: readonly (readonly [string, string])[]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const result: Record<string, unknown> = { ...value };
  for (const [from, to] of renames) {
    if (result[from] !== undefined && result[from] !== null && (result[to] === undefined || result[to] === null)) {
      result[to] = result[from];
      delete result[from];
    }
  }
  return result;
}

/**
 * `value` with the one entry of each old list (reflexio-ai 0.2.8 sends an extractor's configuration
 * as a list of one) moved to the single field when that is not given. Longer lists, or lists beside
 * a given single field, stay to be validated (and dropped).
 */
function firstOfList(value: unknown, lists: readonly (readonly [string, string])[]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const result: Record<string, unknown> = { ...value };
  for (const [from, to] of lists) {
    const list = result[from];
    if (Array.isArray(list) && list.length === 1 && (result[to] === undefined || result[to] === null)) {
      result[to] = list[0];
      delete result[from];
    }
  }
  return result;
}

/** A retrieval A/B experiment in progress: a share of the users (arm_split) gets the learnings. */
export const RetrievalExperiment = z
  .object({
    experiment_id: z.string().min(1).max(255),
    /** Fraction of users in the treatment arm. */
    arm_split: Fraction.default(0.5),
    started_at: UnixSeconds,
  })
  .strict();
export type RetrievalExperiment = z.infer<typeof RetrievalExperiment>;

/** The enterprise response overlay; a deployment without the offline tuner always reports it off. */
export const OfflineTunerConfig = z.object({ enabled: z.boolean() }).strict();

export const EXTRACTION_PRESETS = ["long_form"] as const;
/** The interaction window a preset stands for. */
const PRESET_WINDOWS = { long_form: { window_size: 25, stride_size: 10 } } as const;

/**
 * Every field a caller may set, each with its model default, so a full replacement resets what it
 * omits. retrieval_experiment is not here: the experiment lifecycle owns it.
 */
/** A window of ordinary chat turns takes a few thousand tokens; this leaves room for long tool outputs at a bounded cost per call. */
export const DEFAULT_LEARNING_INPUT_BUDGET_TOKENS = 24_000;

const settableFields = {
  profile_extractor_config: ProfileExtractorConfig.prefault({}),
  user_playbook_extractor_config: UserPlaybookExtractorConfig.prefault({}),
  playbook_aggregator_config: PlaybookAggregatorConfig.prefault({}),
  deduplication_config: DeduplicationConfig.prefault({}),
  agent_success_config: AgentSuccessConfig.prefault({}),
  api_key_config: ApiKeyConfig.prefault({}),
  llm_config: LlmConfig.prefault({}),
  /** The deployment decides where data lives; a project cannot. */
  storage_config: z.null({ error: "storage is the deployment's (DATABASE_URL, or DATA_DIR in embedded mode), not a project's: send null" }).default(null),
  /** Interactions per extraction window, and how far the window moves each time. */
  window_size: z.number().int().min(1).max(1000).default(10),
  stride_size: z.number().int().min(1).max(1000).default(5),
  extraction_preset: z.enum(EXTRACTION_PRESETS).nullable().default(null),
  enable_document_expansion: z.boolean().default(false),
  /**
   * Extraction may ask a person (the ask_human tool, GET /api/pending_tool_calls) when a window
   * cannot decide alone; its window waits for the answer. Named as the peer service names it.
   */
  pending_tool_call_config: z
    .object({ enabled: z.boolean().default(false).describe("Let extraction windows ask a person and wait for the answer") })
    .strict()
    .prefault({}),
  /**
   * Tokens a learning window's extraction call may send (prompt and transcript); a longer window is
   * reduced, and held for an operator when it still does not fit. Ours: the peer service has none.
   */
  learning_input_budget_tokens: z
    .number()
    .int()
    .min(1)
    .max(2_000_000)
    .default(DEFAULT_LEARNING_INPUT_BUDGET_TOKENS)
    .describe("Input tokens one extraction call may send; over it a window is reduced, then held (learning_status reason input_budget_exceeded)"),
  /** Verdicts of other judge prompt versions are left out of shadow comparisons. */
  shadow_comparison_judge_prompt_version: z.string().min(1).default("v1"),
};

/** Input only: a retired no-op, accepted so older clients keep working, never stored or returned. */
const retiredFields = { shadow_mode_enabled: z.boolean().nullish() };

/** The names reflexio-ai 0.2.8 gives fields of ours: renamed to ours when ours are not given (see `renamed`). */
const OLD_NAMES = [
  ["batch_size", "window_size"],
  ["batch_interval", "stride_size"],
] as const;
const ONE_EXTRACTOR = "this service runs one extractor of each kind: give at most one entry";
const OLD_LISTS = [
  ["profile_extractor_configs", "profile_extractor_config"],
  ["user_playbook_extractor_configs", "user_playbook_extractor_config"],
  ["agent_success_configs", "agent_success_config"],
] as const;

/**
 * Fields of the peer service's clients a save accepts: 0.2.8's names for the window and its lists
 * of extractor configurations, and the retrieval experiment fields, which the experiment lifecycle
 * owns (sending them as they are changes nothing; a change is a 409, as for retrieval_experiment).
 */
const peerFields = {
  batch_size: z.number().int().min(1).max(1000).optional().describe("window_size under the name of reflexio-ai 0.2.8; window_size wins when both are sent"),
  batch_interval: z.number().int().min(1).max(1000).optional().describe("stride_size under the name of reflexio-ai 0.2.8; stride_size wins when both are sent"),
  profile_extractor_configs: z
    .array(ProfileExtractorConfig)
    .max(1, ONE_EXTRACTOR)
    .optional()
    .describe("profile_extractor_config as a one-entry list (reflexio-ai 0.2.8); the single field wins"),
  user_playbook_extractor_configs: z
    .array(UserPlaybookExtractorConfig)
    .max(1, ONE_EXTRACTOR)
    .optional()
    .describe("user_playbook_extractor_config as a one-entry list (reflexio-ai 0.2.8); the single field wins"),
  agent_success_configs: z
    .array(AgentSuccessConfig)
    .max(1, ONE_EXTRACTOR)
    .optional()
    .describe("agent_success_config as a one-entry list (reflexio-ai 0.2.8); the single field wins"),
  retrieval_experiment_config: z
    .object({ experiment_id: z.string().min(1), holdout_percentage: z.number().gt(0).lt(100) })
    .strict()
    .optional()
    .describe(
      "The active retrieval experiment as the peer service's clients describe it (holdout_percentage = 100 × (1 − arm_split)); lifecycle-owned: a change is a 409",
    ),
  retrieval_experiment_history: z
    .array(z.unknown())
    .optional()
    .describe("Lifecycle-owned and not kept by this service: only an empty list is accepted (anything else is a 409)"),
};
type PeerFields = { [K in keyof typeof peerFields]?: unknown };
type RenamedPeerField = "batch_size" | "batch_interval" | "profile_extractor_configs" | "user_playbook_extractor_configs" | "agent_success_configs";

/**
 * A save's request in our names: what the peer's clients sent under 0.2.8's names was moved to ours
 * before validation (see toOurNames), so what is left under them is dropped. The retrieval
 * experiment fields stay, for the lifecycle's check.
 */
function withoutPeerFields<T extends PeerFields>(request: T): Omit<T, RenamedPeerField> {
  const {
    batch_size: _1,
    batch_interval: _2,
    profile_extractor_configs: _3,
    user_playbook_extractor_configs: _4,
    agent_success_configs: _5,
    ...rest
  } = request;
  return rest;
}

/** Moves 0.2.8's names (and one-entry lists) to ours before a save is validated. */
const toOurNames = (value: unknown) => renamed(firstOfList(value, OLD_LISTS), OLD_NAMES);

type WindowFields = { window_size: number; stride_size: number; extraction_preset: (typeof EXTRACTION_PRESETS)[number] | null };

/**
 * A preset wins over window_size and stride_size, even when they come in the same payload: the
 * preset is the coarser, deliberate choice, and a caller naming both most likely round-tripped a
 * stored configuration whose window the preset had set.
 */
function applyExtractionPreset<T extends WindowFields>(config: T): T {
  return config.extraction_preset ? { ...config, ...PRESET_WINDOWS[config.extraction_preset] } : config;
}
const strideWithinWindow = (config: WindowFields) => config.stride_size <= config.window_size;
const STRIDE_WITHIN_WINDOW = { message: "stride_size must not exceed window_size", path: ["stride_size"] };

/** A project's configuration as stored and served: every field resolved to its value or default. */
export const ProjectConfig = z
  .object({ ...settableFields, retrieval_experiment: RetrievalExperiment.nullable().default(null) })
  .strict()
  .transform(applyExtractionPreset)
  .refine(strideWithinWindow, STRIDE_WITHIN_WINDOW);
export type ProjectConfig = z.output<typeof ProjectConfig>;

/**
 * POST /api/set_config: a full replacement. retrieval_experiment may be sent back unchanged (or
 * left out); offline_tuner_config is accepted so a get_config response can be saved as it came.
 */
export const SetConfigRequest = z
  .preprocess(
    toOurNames,
    z
      .object({
        ...settableFields,
        retrieval_experiment: RetrievalExperiment.nullable().optional(),
        offline_tuner_config: OfflineTunerConfig.optional(),
        ...retiredFields,
        ...peerFields,
      })
      .strict(),
  )
  .transform(withoutPeerFields)
  .transform(applyExtractionPreset)
  .refine(strideWithinWindow, STRIDE_WITHIN_WINDOW);
export type SetConfigRequest = z.output<typeof SetConfigRequest>;

type WithoutDefault<T> = { [K in keyof T]: T[K] extends { unwrap(): infer Inner extends z.ZodType } ? z.ZodOptional<Inner> : never };
/** The fields without their defaults: a partial update must leave what it omits alone. */
const withoutDefaults = <T extends Record<string, { unwrap(): z.ZodType }>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([name, schema]) => [name, schema.unwrap().optional()])) as WithoutDefault<T>;

/**
 * POST /api/update_config: some top-level fields, each replacing its stored value whole. The
 * response-only offline_tuner_config is an unknown key here: the contract accepts overlays only in a
 * full replacement payload, where they come from saving a get_config response back.
 */
export const UpdateConfigRequest = z
  .preprocess(
    toOurNames,
    z.object({ ...withoutDefaults(settableFields), retrieval_experiment: RetrievalExperiment.nullable().optional(), ...retiredFields, ...peerFields }).strict(),
  )
  .transform(withoutPeerFields);
export type UpdateConfigRequest = z.output<typeof UpdateConfigRequest>;

/** A model-dependent similarity as get_config shows it: the value in force (clients of the peer service require a number). */
const EffectiveSimilarity = Fraction.describe("The value in force: the project's own, else the embedding model's calibrated default");
const EffectiveDeduplicationConfig = z.object({ search_threshold: EffectiveSimilarity, search_top_k: z.number().int() });

/** GET /api/get_config: the configuration with the offline tuner overlay, prompts and model-dependent similarities as the values in force. */
export const ConfigResponse = z.object({
  ...settableFields,
  profile_extractor_config: ProfileExtractorConfig.extend({ extraction_definition_prompt: EffectivePrompt }),
  user_playbook_extractor_config: UserPlaybookExtractorConfig.extend({
    extraction_definition_prompt: EffectivePrompt,
    aggregation_config: z.object({ min_cluster_size: z.number().int(), clustering_similarity: EffectiveSimilarity }),
    deduplication_config: EffectiveDeduplicationConfig,
  }),
  deduplication_config: EffectiveDeduplicationConfig,
  playbook_aggregator_config: PlaybookAggregatorConfig.extend({ extraction_definition_prompt: EffectivePrompt }),
  agent_success_config: AgentSuccessConfig.extend({ success_definition_prompt: EffectivePrompt }),
  api_key_config: z.object({ enabled: z.boolean() }),
  llm_config: LlmConfigView,
  retrieval_experiment: RetrievalExperiment.nullable(),
  offline_tuner_config: OfflineTunerConfig,
  batch_size: z.number().int().describe("window_size again, under the name reflexio-ai 0.2.8 reads"),
  batch_interval: z.number().int().describe("stride_size again, under the name reflexio-ai 0.2.8 reads"),
});

export const SetConfigResponse = z.object({ success: z.boolean(), message: z.string() });
export const UpdateConfigResponse = z.object({ success: z.boolean(), msg: z.string() });

export const InvalidateCacheRequest = z
  .object({ org_id: z.string().min(1).optional() })
  .strict()
  .optional();
export const InvalidateCacheResponse = z.object({ invalidated: z.boolean(), org_id: z.string() });

export const STORAGE_TYPES = ["postgres", "pglite"] as const;
const StorageType = z.enum(STORAGE_TYPES);

export const WhoamiResponse = z.object({
  success: z.boolean().describe("Always true on a 200 (clients of the peer service require it)"),
  org_id: z.string(),
  storage_type: StorageType,
  /** Where the data lives, with credentials masked; null when this process was not told, and always in AUTH_MODE=required. */
  storage_label: z
    .string()
    .nullable()
    .describe("Where the data lives, credentials masked; null when the server was not told, and always on a hosted server (AUTH_MODE=required)"),
});

/** The raw storage settings: a PostgreSQL URL with its credentials, or PGlite's data directory (null: in memory). */
export const StorageConfig = z.union([z.object({ url: z.string() }), z.object({ data_dir: z.string().nullable() })]);

export const MyConfigResponse = z.object({
  success: z.boolean(),
  storage_type: StorageType,
  /** Secret: carries the database credentials. Null when this process was not told its settings. */
  storage_config: StorageConfig.nullable(),
});
