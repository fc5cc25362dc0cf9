import { z } from "zod";
import {
  END_AFTER_START_RULE, END_BEFORE_START,
  endAfterStart,
  PLAYBOOK_STATUSES,
  PlaybookStatus,
  SearchMode,
  Source,
  Status,
  STATUSES,
  StatusFilter,
  Tags,
  Threshold,
  TimeRange,
  UserId,
} from "./common.ts";

/** The agent version a playbook belongs to when the caller names none. */
export const DEFAULT_AGENT_VERSION = "agent-v0";

const PlaybookId = z.number().int().positive();
const AgentVersion = z.string().min(1).max(255);
const PlaybookName = z.string().max(255);
/** Request and session ids: at most 255 characters. */
const BoundedId = z.string().max(255);
/** A user filter; empty disables it. */
const UserIdFilter = z.string().max(255);

/** A playbook must say when it applies or what to do: at least one of trigger and content. */
export const hasContentOrTrigger = (playbook: { content: string; trigger: string }) =>
  playbook.content.trim() !== "" || playbook.trigger.trim() !== "";
export const CONTENT_OR_TRIGGER_MESSAGE = "give content or trigger: at least one must be non-empty";
const CONTENT_OR_TRIGGER = { message: CONTENT_OR_TRIGGER_MESSAGE, path: ["content"] };
/** The same rule in JSON Schema, for OpenAPI: a non-blank content or a non-blank trigger. */
const CONTENT_OR_TRIGGER_SCHEMA = {
  anyOf: [
    { required: ["content"], properties: { content: { pattern: "\\S" } } },
    { required: ["trigger"], properties: { trigger: { pattern: "\\S" } } },
  ],
};

/** The text of a JSON object, as the contract carries playbook_metadata. */
export const JsonObjectText = z.string().refine(
  (text) => {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === "object" && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  },
  { message: 'must be the text of a JSON object, e.g. "{\\"team\\": \\"support\\"}"' },
);

/** One approval status or a list of them. */
export const PlaybookStatusFilter = z.preprocess((value) => (typeof value === "string" ? [value] : value), z.array(PlaybookStatus).min(1));

const PlaybookFields = {
  playbook_name: z.string(),
  content: z.string(),
  trigger: z.string(),
  rationale: z.string(),
  agent_version: z.string(),
  tags: z.array(z.string()),
  status: z.enum(STATUSES),
  created_at: z.number().int(),
  last_modified_timestamp: z.number().int(),
};

export const UserPlaybook = z.object({
  user_playbook_id: z.number().int(),
  user_id: z.string(),
  request_id: z.string().nullable(),
  source: z.string(),
  ...PlaybookFields,
});
export type UserPlaybook = z.infer<typeof UserPlaybook>;

export const AgentPlaybook = z.object({
  agent_playbook_id: z.number().int(),
  playbook_status: z.enum(PLAYBOOK_STATUSES),
  playbook_metadata: z.string(),
  /** The user playbooks this agent playbook was made from. */
  source_user_playbook_ids: z.array(z.number().int()),
  ...PlaybookFields,
});
export type AgentPlaybook = z.infer<typeof AgentPlaybook>;

const NewPlaybookFields = {
  agent_version: AgentVersion.default(DEFAULT_AGENT_VERSION),
  playbook_name: PlaybookName.default(""),
  content: z.string().default(""),
  trigger: z.string().default(""),
  rationale: z.string().default(""),
  tags: Tags.default([]),
  status: Status.default("CURRENT"),
};

export const NewUserPlaybook = z
  .object({
    user_id: UserId,
    request_id: BoundedId.nullish(),
    source: Source.default(""),
    ...NewPlaybookFields,
  })
  .strict()
  .refine(hasContentOrTrigger, CONTENT_OR_TRIGGER)
  .meta(CONTENT_OR_TRIGGER_SCHEMA);
export type NewUserPlaybook = z.infer<typeof NewUserPlaybook>;

export const NewAgentPlaybook = z
  .object({
    /** Added by hand, an agent playbook waits for approval like a generated one unless told otherwise. */
    playbook_status: PlaybookStatus.default("PENDING"),
    playbook_metadata: JsonObjectText.default("{}"),
    /** User playbooks of the same project this one was made from. */
    source_user_playbook_ids: z.array(PlaybookId).default([]),
    ...NewPlaybookFields,
  })
  .strict()
  .refine(hasContentOrTrigger, CONTENT_OR_TRIGGER)
  .meta(CONTENT_OR_TRIGGER_SCHEMA);
export type NewAgentPlaybook = z.infer<typeof NewAgentPlaybook>;

export const AddUserPlaybookRequest = z.object({
  user_playbooks: z.array(NewUserPlaybook).min(1, "user_playbooks must hold at least one playbook"),
});
export const AddUserPlaybookResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  added_count: z.number().int(),
  user_playbook_ids: z.array(z.number().int()),
});

export const AddAgentPlaybookRequest = z.object({
  agent_playbooks: z.array(NewAgentPlaybook).min(1, "agent_playbooks must hold at least one playbook"),
});
export const AddAgentPlaybookResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  added_count: z.number().int(),
  agent_playbook_ids: z.array(z.number().int()),
});

/** Filters both kinds of playbook share; the time range bounds created_at. */
const PlaybookFilterFields = {
  query: z.string().optional(),
  playbook_name: z.string().optional(),
  agent_version: z.string().optional(),
  ...TimeRange,
  status_filter: StatusFilter.optional(),
  tags: Tags.optional(),
};
const Limit = z.number().int().min(1).max(10000).default(100);
const TopK = z.number().int().min(1).max(100).default(10);
const SearchOptionFields = {
  top_k: TopK,
  threshold: Threshold.optional(),
  enable_reformulation: z.boolean().default(false),
  search_mode: SearchMode.optional(),
};

export const GetUserPlaybooksRequest = z
  .object({
    limit: Limit,
    user_playbook_id: PlaybookId.optional(),
    user_id: UserIdFilter.optional(),
    request_id: z.string().optional(),
    ...PlaybookFilterFields,
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetUserPlaybooksRequest = z.infer<typeof GetUserPlaybooksRequest>;

export const GetAgentPlaybooksRequest = z
  .object({
    limit: Limit,
    agent_playbook_id: PlaybookId.optional(),
    ...PlaybookFilterFields,
    playbook_status_filter: PlaybookStatusFilter.optional(),
    // Every read goes to storage (there is no cache yet), so there is nothing to bypass.
    force_refresh: z.boolean().default(false),
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetAgentPlaybooksRequest = z.infer<typeof GetAgentPlaybooksRequest>;

export const SearchUserPlaybooksRequest = z
  .object({
    user_id: UserIdFilter.optional(),
    /** Correlation only: neither filters the results. */
    request_id: BoundedId.optional(),
    session_id: BoundedId.optional(),
    source: Source.optional(),
    ...PlaybookFilterFields,
    ...SearchOptionFields,
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type SearchUserPlaybooksRequest = z.infer<typeof SearchUserPlaybooksRequest>;

export const SearchAgentPlaybooksRequest = z
  .object({
    /** Identifies the caller for retrieval experiment assignment; never a filter. */
    user_id: UserId.optional(),
    /** Matches agent playbooks with at least one linked source user playbook of this source. */
    source: Source.optional(),
    ...PlaybookFilterFields,
    playbook_status_filter: PlaybookStatusFilter.optional(),
    ...SearchOptionFields,
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type SearchAgentPlaybooksRequest = z.infer<typeof SearchAgentPlaybooksRequest>;

export const UserPlaybooksResponse = z.object({
  success: z.boolean(),
  user_playbooks: z.array(UserPlaybook),
  msg: z.string().nullable(),
});
export const AgentPlaybooksResponse = z.object({
  success: z.boolean(),
  agent_playbooks: z.array(AgentPlaybook),
  msg: z.string().nullable(),
});

const PlaybookTextEdits = {
  playbook_name: PlaybookName.optional(),
  content: z.string().optional(),
  trigger: z.string().optional(),
  rationale: z.string().optional(),
};

export const UpdateUserPlaybookRequest = z.object({ user_playbook_id: PlaybookId, ...PlaybookTextEdits }).strict();
export type UpdateUserPlaybookRequest = z.infer<typeof UpdateUserPlaybookRequest>;

export const UpdateAgentPlaybookRequest = z
  .object({ agent_playbook_id: PlaybookId, ...PlaybookTextEdits, playbook_status: PlaybookStatus.optional() })
  .strict();
export type UpdateAgentPlaybookRequest = z.infer<typeof UpdateAgentPlaybookRequest>;

export const UpdateAgentPlaybookStatusRequest = z.object({ agent_playbook_id: PlaybookId, playbook_status: PlaybookStatus }).strict();

export const DeleteUserPlaybookRequest = z.object({ user_playbook_id: PlaybookId });
export const DeleteAgentPlaybookRequest = z.object({ agent_playbook_id: PlaybookId });
export const DeleteUserPlaybooksByIdsRequest = z.object({
  user_playbook_ids: z.array(PlaybookId).min(1, "user_playbook_ids must hold at least one id"),
});
export const DeleteAgentPlaybooksByIdsRequest = z.object({
  agent_playbook_ids: z.array(PlaybookId).min(1, "agent_playbook_ids must hold at least one id"),
});
