import { z } from "zod";
import { UnixSeconds } from "./common.ts";

const Fraction = z.number().min(0).max(1);
/** A prompt of an extractor or the aggregator; null means the built-in default prompt. */
const Prompt = z.string().nullable().default(null);

export const DeduplicationConfig = z
  .object({
    search_threshold: Fraction.default(0.85),
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
        clustering_similarity: Fraction.default(0.8),
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
    sampling_rate: Fraction.default(1),
    /** null: evaluation-only sessions are sampled at sampling_rate. */
    evaluation_only_sampling_rate: Fraction.nullable().default(null),
    retrieved_learning_sampling_rate: Fraction.default(1),
  })
  .strict();

export const ApiKeyConfig = z
  .object({
    /** Whether the project's requests must carry an API key (hosted mode; a local server needs none). */
    enabled: z.boolean().default(false),
  })
  .strict();

export const LlmConfig = z
  .object({
    /** null: the deployment's LLM_MODEL. */
    model: z.string().min(1).nullable().default(null),
    temperature: z.number().min(0).max(2).default(0),
  })
  .strict();

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
const settableFields = {
  profile_extractor_config: ProfileExtractorConfig.prefault({}),
  user_playbook_extractor_config: UserPlaybookExtractorConfig.prefault({}),
  playbook_aggregator_config: PlaybookAggregatorConfig.prefault({}),
  deduplication_config: DeduplicationConfig.prefault({}),
  agent_success_config: AgentSuccessConfig.prefault({}),
  api_key_config: ApiKeyConfig.prefault({}),
  llm_config: LlmConfig.prefault({}),
  /** The deployment decides where data lives; a project cannot. */
  storage_config: z.null().default(null),
  /** Interactions per extraction window, and how far the window moves each time. */
  window_size: z.number().int().min(1).max(1000).default(10),
  stride_size: z.number().int().min(1).max(1000).default(5),
  extraction_preset: z.enum(EXTRACTION_PRESETS).nullable().default(null),
  enable_document_expansion: z.boolean().default(false),
  /** Verdicts of other judge prompt versions are left out of shadow comparisons. */
  shadow_comparison_judge_prompt_version: z.string().min(1).default("v1"),
};

/** Input only: a retired no-op, accepted so older clients keep working, never stored or returned. */
const retiredFields = { shadow_mode_enabled: z.boolean().nullish() };

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
  .object({
    ...settableFields,
    retrieval_experiment: RetrievalExperiment.nullable().optional(),
    offline_tuner_config: OfflineTunerConfig.optional(),
    ...retiredFields,
  })
  .strict()
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
  .object({ ...withoutDefaults(settableFields), retrieval_experiment: RetrievalExperiment.nullable().optional(), ...retiredFields })
  .strict();
export type UpdateConfigRequest = z.output<typeof UpdateConfigRequest>;

/** GET /api/get_config: the configuration with the offline tuner overlay. */
export const ConfigResponse = z.object({
  ...settableFields,
  retrieval_experiment: RetrievalExperiment.nullable(),
  offline_tuner_config: OfflineTunerConfig,
});

export const SetConfigResponse = z.object({ success: z.boolean(), message: z.string() });
export const UpdateConfigResponse = z.object({ success: z.boolean(), msg: z.string() });

export const InvalidateCacheRequest = z.object({ org_id: z.string().min(1).optional() }).strict().optional();
export const InvalidateCacheResponse = z.object({ invalidated: z.boolean(), org_id: z.string() });

export const STORAGE_TYPES = ["postgres", "pglite"] as const;
const StorageType = z.enum(STORAGE_TYPES);

export const WhoamiResponse = z.object({
  org_id: z.string(),
  storage_type: StorageType,
  /** Where the data lives, with credentials masked; null when this process was not told. */
  storage_label: z.string().nullable(),
});

/** The raw storage settings: a PostgreSQL URL with its credentials, or PGlite's data directory (null: in memory). */
export const StorageConfig = z.union([z.object({ url: z.string() }), z.object({ data_dir: z.string().nullable() })]);

export const MyConfigResponse = z.object({
  success: z.boolean(),
  storage_type: StorageType,
  /** Secret: carries the database credentials. Null when this process was not told its settings. */
  storage_config: StorageConfig.nullable(),
});
