import { z } from "zod";
import { SearchMode, SearchText, Source, Tags, Threshold } from "./common.ts";
import { AgentPlaybook, PlaybookStatusFilter, UserPlaybook } from "./playbooks.ts";
import { Profile } from "./profiles.ts";

export const ENTITY_TYPES = ["profiles", "user_playbooks", "agent_playbooks"] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

const BoundedId = z.string().max(255);

export const ConversationTurn = z.object({ role: z.string(), content: z.string() });

export const UnifiedSearchRequest = z.object({
  query: SearchText,
  /** Per entity type. */
  top_k: z.number().int().min(1).max(100).default(5),
  threshold: Threshold.optional(),
  agent_version: z.string().optional(),
  playbook_name: z.string().optional(),
  /** Scopes profiles and user playbooks; profiles are searched only when it is given. */
  user_id: BoundedId.optional(),
  /** Exact source for every selected type; omitted, null or empty disables. */
  source: Source.nullish(),
  /** Correlation only: nothing is persisted under it. */
  request_id: BoundedId.optional(),
  session_id: BoundedId.optional(),
  interaction_id: z.number().int().min(1).optional(),
  tags: Tags.optional(),
  entity_types: z
    .array(z.enum(ENTITY_TYPES))
    .min(1, "entity_types must name at least one entity type")
    .default([...ENTITY_TYPES]),
  agent_playbook_status_filter: PlaybookStatusFilter.optional(),
  enable_reformulation: z.boolean().default(false),
  // Accepted for compatibility; no backend of this server can answer, so it is ignored.
  enable_agent_answer: z.boolean().default(false),
  /** Context for reformulation, which needs an LLM this server does not have yet. */
  conversation_history: z.array(ConversationTurn).optional(),
  search_mode: SearchMode.optional(),
});
export type UnifiedSearchRequest = z.infer<typeof UnifiedSearchRequest>;

export const ServedUserPlaybook = UserPlaybook.extend({
  /** Opaque proof that this playbook was served (to this session); publish accepts it back. */
  exposure_receipt: z.string(),
});

export const UnifiedSearchResponse = z.object({
  success: z.boolean(),
  profiles: z.array(Profile),
  user_playbooks: z.array(ServedUserPlaybook),
  agent_playbooks: z.array(AgentPlaybook),
  reformulated_query: z.string().nullable(),
  degradation: z.record(z.string(), z.unknown()).nullable(),
  experiment: z.object({ experiment_id: z.string(), arm: z.enum(["treatment", "holdout"]) }).nullable(),
});
export type UnifiedSearchResponse = z.infer<typeof UnifiedSearchResponse>;
