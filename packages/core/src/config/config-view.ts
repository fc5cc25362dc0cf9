import type { ConfigResponse, ProjectConfig } from "@als/contract";
import type { z } from "zod";
import { DEFAULT_AGGREGATION_DEFINITION } from "../aggregation/summarize-cluster.ts";
import { DEFAULT_PLAYBOOK_DEFINITION, DEFAULT_PROFILE_DEFINITION, DEFAULT_SUCCESS_DEFINITION } from "../learning/default-definitions.ts";
import { OFFLINE_TUNER_OVERLAY } from "./offline-tuner.ts";

/**
 * The configuration as get_config shows it: each prompt as the text in force (clients of the peer
 * service require text where null means the built-in one), the window also under 0.2.8's names, the
 * model also under the peer's name, and the offline tuner overlay.
 */
export function toConfigView(config: ProjectConfig): z.input<typeof ConfigResponse> {
  return {
    ...config,
    profile_extractor_config: {
      ...config.profile_extractor_config,
      extraction_definition_prompt: config.profile_extractor_config.extraction_definition_prompt ?? DEFAULT_PROFILE_DEFINITION,
    },
    user_playbook_extractor_config: {
      ...config.user_playbook_extractor_config,
      extraction_definition_prompt: config.user_playbook_extractor_config.extraction_definition_prompt ?? DEFAULT_PLAYBOOK_DEFINITION,
    },
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

type PromptFields = Pick<ProjectConfig, "profile_extractor_config" | "user_playbook_extractor_config" | "playbook_aggregator_config" | "agent_success_config">;

/**
 * The fields with each prompt that is the built-in text stored as null (the built-in), so saving a
 * get_config response back keeps following the built-in prompt instead of pinning today's text.
 */
export function withBuiltInPromptsAsNull<T extends Partial<PromptFields>>(fields: T): T {
  const builtIn = (text: string | null, defaultText: string) => (text !== null && text.trim() === defaultText ? null : text);
  return {
    ...fields,
    ...(fields.profile_extractor_config && {
      profile_extractor_config: {
        ...fields.profile_extractor_config,
        extraction_definition_prompt: builtIn(fields.profile_extractor_config.extraction_definition_prompt, DEFAULT_PROFILE_DEFINITION),
      },
    }),
    ...(fields.user_playbook_extractor_config && {
      user_playbook_extractor_config: {
        ...fields.user_playbook_extractor_config,
        extraction_definition_prompt: builtIn(fields.user_playbook_extractor_config.extraction_definition_prompt, DEFAULT_PLAYBOOK_DEFINITION),
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
