import type { SimilarityCalibration } from "@als/ai";
import type { ConfigResponse, ProjectConfig } from "@als/contract";
import type { z } from "zod";
import { DEFAULT_AGGREGATION_DEFINITION } from "../aggregation/summarize-cluster.ts";
import { DEFAULT_PLAYBOOK_DEFINITION, DEFAULT_PROFILE_DEFINITION, DEFAULT_SUCCESS_DEFINITION } from "../learning/default-definitions.ts";
import { OFFLINE_TUNER_OVERLAY } from "./offline-tuner.ts";

/**
 * The configuration as get_config shows it: each prompt as the text in force (clients of the peer
 * service require text where null means the built-in one), each model-dependent similarity as the
 * value in force (the embedding model's where the project set none), the window also under 0.2.8's
 * names, the model also under the peer's name, and the offline tuner overlay.
 */
export function toConfigView(config: ProjectConfig, calibration: SimilarityCalibration): z.input<typeof ConfigResponse> {
  const playbooks = config.user_playbook_extractor_config;
  const deduplication = (settings: ProjectConfig["deduplication_config"]) => ({
    ...settings,
    search_threshold: settings.search_threshold ?? calibration.deduplicationThreshold,
  });
  return {
    ...config,
    profile_extractor_config: {
      ...config.profile_extractor_config,
      extraction_definition_prompt: config.profile_extractor_config.extraction_definition_prompt ?? DEFAULT_PROFILE_DEFINITION,
    },
    user_playbook_extractor_config: {
      ...playbooks,
      extraction_definition_prompt: playbooks.extraction_definition_prompt ?? DEFAULT_PLAYBOOK_DEFINITION,
      aggregation_config: {
        ...playbooks.aggregation_config,
        clustering_similarity: playbooks.aggregation_config.clustering_similarity ?? calibration.clusteringSimilarity,
      },
      deduplication_config: deduplication(playbooks.deduplication_config),
    },
    deduplication_config: deduplication(config.deduplication_config),
    playbook_aggregator_config: {
      extraction_definition_prompt: config.playbook_aggregator_config.extraction_definition_prompt ?? DEFAULT_AGGREGATION_DEFINITION,
    },
    agent_success_config: {
      ...config.agent_success_config,
      success_definition_prompt: config.agent_success_config.success_definition_prompt ?? DEFAULT_SUCCESS_DEFINITION,
    },
    api_key_config: { enabled: config.api_key_config.enabled },
    llm_config: { model: config.llm_config.model, temperature: config.llm_config.temperature, generation_model_name: config.llm_config.model },
    offline_tuner_config: OFFLINE_TUNER_OVERLAY,
    batch_size: config.window_size,
    batch_interval: config.stride_size,
  };
}

type DefaultedFields = Pick<
  ProjectConfig,
  "profile_extractor_config" | "user_playbook_extractor_config" | "playbook_aggregator_config" | "agent_success_config" | "deduplication_config"
>;

/**
 * The fields with each prompt that is the built-in text, and each similarity that is the embedding
 * model's value, stored as null (the default), so saving a get_config response back keeps following
 * the defaults instead of pinning today's text or today's model's value.
 */
export function withDefaultsAsNull<T extends Partial<DefaultedFields>>(fields: T, calibration: SimilarityCalibration): T {
  const builtIn = (text: string | null, defaultText: string) => (text !== null && text.trim() === defaultText ? null : text);
  const modelValue = (value: number | null, modelDefault: number) => (value === modelDefault ? null : value);
  const deduplication = (settings: DefaultedFields["deduplication_config"]) => ({
    ...settings,
    search_threshold: modelValue(settings.search_threshold, calibration.deduplicationThreshold),
  });
  const playbooks = fields.user_playbook_extractor_config;
  return {
    ...fields,
    ...(fields.deduplication_config && { deduplication_config: deduplication(fields.deduplication_config) }),
    ...(fields.profile_extractor_config && {
      profile_extractor_config: {
        ...fields.profile_extractor_config,
        extraction_definition_prompt: builtIn(fields.profile_extractor_config.extraction_definition_prompt, DEFAULT_PROFILE_DEFINITION),
      },
    }),
    ...(playbooks && {
      user_playbook_extractor_config: {
        ...playbooks,
        extraction_definition_prompt: builtIn(playbooks.extraction_definition_prompt, DEFAULT_PLAYBOOK_DEFINITION),
        aggregation_config: {
          ...playbooks.aggregation_config,
          clustering_similarity: modelValue(playbooks.aggregation_config.clustering_similarity, calibration.clusteringSimilarity),
        },
        deduplication_config: deduplication(playbooks.deduplication_config),
      },
    }),
    ...(fields.playbook_aggregator_config && {
      playbook_aggregator_config: {
        extraction_definition_prompt: builtIn(fields.playbook_aggregator_config.extraction_definition_prompt, DEFAULT_AGGREGATION_DEFINITION),
      },
    }),
    ...(fields.agent_success_config && {
      agent_success_config: {
        ...fields.agent_success_config,
        success_definition_prompt: builtIn(fields.agent_success_config.success_definition_prompt, DEFAULT_SUCCESS_DEFINITION),
      },
    }),
  };
}
