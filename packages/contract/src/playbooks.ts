import { z } from "zod";
import {
  END_AFTER_START_RULE,
  END_BEFORE_START,
  endAfterStart,
  PlaybookStatus,
  PlaybookStatusOnWire,
  SearchMode,
  SearchText,
  Source,
  Status,
  StatusFilter,
  StatusOnWire,
  Tags,
  Threshold,
  TimeRange,
  UserId,
} from "./common.ts";
import { type IgnoredFieldRules, ignoredFieldWarnings, knownFieldsOf, readOnlyFields } from "./ignored-fields.ts";

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
export const hasContentOrTrigger = (playbook: { content: string; trigger: string }) => playbook.content.trim() !== "" || playbook.trigger.trim() !== "";
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
  structured_data: z
    .object({ trigger: z.string(), rationale: z.string() })
    .describe("trigger and rationale again, where clients of the peer service (reflexio-ai 0.2.8) read them"),
  agent_version: z.string(),
  tags: z.array(z.string()),
  status: StatusOnWire,
  created_at: z.number().int(),
  last_modified_timestamp: z.number().int(),
};

export const UserPlaybook = z.object({
  user_playbook_id: z.number().int(),
  user_id: z.string(),
  request_id: z.string().describe("The request it was learned from; empty for one added without it (clients of the peer service require a string here)"),
  source: z.string(),
  ...PlaybookFields,
});
export type UserPlaybook = z.infer<typeof UserPlaybook>;

export const AgentPlaybook = z.object({
  agent_playbook_id: z.number().int(),
  playbook_status: PlaybookStatusOnWire,
  playbook_metadata: z.string(),
  /** The user playbooks this agent playbook was made from. */
  source_user_playbook_ids: z.array(z.number().int()),
  ...PlaybookFields,
});
export type AgentPlaybook = z.infer<typeof AgentPlaybook>;

/** The fields of the peer service's structured_data other than trigger and rationale, which this service does not keep. */
const PEER_STRUCTURED_FIELDS = ["instruction", "pitfall", "blocking_issue", "embedding_text"] as const;

/**
 * reflexio-ai 0.2.8 carries a playbook's trigger and rationale in structured_data. They count where
 * the flat trigger and rationale are not given (absent, null or empty); the flat ones win.
 */
function liftStructuredData(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const entry = value as Record<string, unknown>;
  const structured = entry.structured_data;
  if (typeof structured !== "object" || structured === null || Array.isArray(structured)) return value;
  const lifted = { ...entry };
  for (const field of ["trigger", "rationale"] as const) {
    const nested = (structured as Record<string, unknown>)[field];
    if (typeof nested === "string" && nested !== "" && (lifted[field] === undefined || lifted[field] === null || lifted[field] === "")) lifted[field] = nested;
  }
  return lifted;
}

/** On add, what structured_data holds besides trigger and rationale is ignored (and named, like any ignored field). */
const StructuredDataOnAdd = z
  .looseObject({ trigger: z.string().nullish(), rationale: z.string().nullish() })
  .nullish()
  .describe("trigger and rationale where reflexio-ai 0.2.8 sends them; the flat fields win when given");

/** The names of structured_data's fields that carried a value and were ignored. */
const ignoredStructuredFields = (entry: { structured_data?: Record<string, unknown> | null }) =>
  Object.entries(entry.structured_data ?? {}).flatMap(([key, value]) =>
    key === "trigger" || key === "rationale" || value === null ? [] : [`structured_data.${key}`],
  );

const NewPlaybookFields = {
  agent_version: AgentVersion.default(DEFAULT_AGENT_VERSION),
  playbook_name: PlaybookName.default(""),
  content: z.string().default(""),
  trigger: z.string().default(""),
  rationale: z.string().default(""),
  tags: Tags.default([]),
  status: Status.default("CURRENT"),
  structured_data: StructuredDataOnAdd,
};

const NewUserPlaybookFields = z.object({
  user_id: UserId,
  request_id: BoundedId.nullish(),
  source: Source.default(""),
  ...NewPlaybookFields,
});
/** Other fields (the peer service's whole playbook model, read-only ones included) are ignored and named in the warnings. */
export const NewUserPlaybook = z.preprocess(
  liftStructuredData,
  NewUserPlaybookFields.loose().refine(hasContentOrTrigger, CONTENT_OR_TRIGGER).meta(CONTENT_OR_TRIGGER_SCHEMA),
);
export type NewUserPlaybook = Omit<z.infer<typeof NewUserPlaybookFields>, "structured_data">;

const NewAgentPlaybookFields = z.object({
  /** Added by hand, an agent playbook waits for approval like a generated one unless told otherwise. */
  playbook_status: PlaybookStatus.default("PENDING"),
  playbook_metadata: z
    .preprocess((value) => (value === "" ? undefined : value), JsonObjectText.default("{}"))
    .describe('The text of a JSON object; "" (the default of the peer service\'s clients) means "{}"'),
  /** User playbooks of the same project this one was made from. */
  source_user_playbook_ids: z.array(PlaybookId).default([]),
  ...NewPlaybookFields,
});
export const NewAgentPlaybook = z.preprocess(
  liftStructuredData,
  NewAgentPlaybookFields.loose().refine(hasContentOrTrigger, CONTENT_OR_TRIGGER).meta(CONTENT_OR_TRIGGER_SCHEMA),
);
export type NewAgentPlaybook = Omit<z.infer<typeof NewAgentPlaybookFields>, "structured_data">;

const USER_PLAYBOOK_FIELDS: IgnoredFieldRules = {
  known: new Set(Object.keys(NewUserPlaybookFields.shape)),
  readOnly: readOnlyFields(UserPlaybook, NewUserPlaybookFields),
};
const AGENT_PLAYBOOK_FIELDS: IgnoredFieldRules = {
  known: new Set(Object.keys(NewAgentPlaybookFields.shape)),
  readOnly: readOnlyFields(AgentPlaybook, NewAgentPlaybookFields),
};

/** The entries as stored (the fields this service reads, structured_data lifted), and the warnings naming what was ignored. */
function withIgnoredFieldWarnings<T extends { structured_data?: Record<string, unknown> | null }>(list: string, entries: T[], rules: IgnoredFieldRules) {
  return {
    entries: entries.map(({ structured_data: _lifted, ...entry }) => knownFieldsOf(entry, rules.known)),
    warnings: entries.flatMap((entry, index) => ignoredFieldWarnings(`${list}[${index}]`, entry, rules, ignoredStructuredFields(entry))),
  };
}

const WARNINGS = z
  .array(z.string())
  .describe("Fields of the entries that were ignored: read-only ones (ids, timestamps) and unknown ones, each that carried a value");

export const AddUserPlaybookRequest = z
  .object({
    user_playbooks: z.array(NewUserPlaybook).min(1, "user_playbooks must hold at least one playbook"),
  })
  .transform(({ user_playbooks }) => {
    const { entries, warnings } = withIgnoredFieldWarnings("user_playbooks", user_playbooks, USER_PLAYBOOK_FIELDS);
    return { user_playbooks: entries as NewUserPlaybook[], warnings };
  });
export const AddUserPlaybookResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  added_count: z.number().int(),
  user_playbook_ids: z.array(z.number().int()),
  warnings: WARNINGS,
});

export const AddAgentPlaybookRequest = z
  .object({
    agent_playbooks: z.array(NewAgentPlaybook).min(1, "agent_playbooks must hold at least one playbook"),
  })
  .transform(({ agent_playbooks }) => {
    const { entries, warnings } = withIgnoredFieldWarnings("agent_playbooks", agent_playbooks, AGENT_PLAYBOOK_FIELDS);
    return { agent_playbooks: entries as NewAgentPlaybook[], warnings };
  });
export const AddAgentPlaybookResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  added_count: z.number().int(),
  agent_playbook_ids: z.array(z.number().int()),
  warnings: WARNINGS,
});

/** Filters both kinds of playbook share; the time range bounds created_at. */
const PlaybookFilterFields = {
  query: SearchText.optional(),
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

const KEPT_IN_TRIGGER_AND_RATIONALE = "this service keeps a playbook's trigger and rationale only: send null";

/**
 * reflexio-ai 0.2.8 sends trigger and rationale changes in structured_data (null: unchanged). Its
 * other fields have nowhere to go: a value there is refused rather than dropped unnoticed.
 */
const StructuredDataEdit = z
  .object({
    trigger: z.string().nullish(),
    rationale: z.string().nullish(),
    ...Object.fromEntries(PEER_STRUCTURED_FIELDS.map((field) => [field, z.null({ error: KEPT_IN_TRIGGER_AND_RATIONALE }).optional()])),
  })
  .strict()
  .optional()
  .describe("trigger and rationale where reflexio-ai 0.2.8 sends them; the flat fields win when given");

const PlaybookTextEdits = {
  playbook_name: PlaybookName.optional(),
  content: z.string().optional(),
  trigger: z.string().optional(),
  rationale: z.string().optional(),
  structured_data: StructuredDataEdit,
};

/** An edit in this service's fields: structured_data's trigger and rationale were lifted (see liftStructuredData). */
const withoutStructuredData = <T extends { structured_data?: unknown }>({ structured_data: _lifted, ...edit }: T) => edit;

export const UpdateUserPlaybookRequest = z
  .preprocess(liftStructuredData, z.object({ user_playbook_id: PlaybookId, ...PlaybookTextEdits }).strict())
  .transform(withoutStructuredData);
export type UpdateUserPlaybookRequest = z.infer<typeof UpdateUserPlaybookRequest>;

export const UpdateAgentPlaybookRequest = z
  .preprocess(liftStructuredData, z.object({ agent_playbook_id: PlaybookId, ...PlaybookTextEdits, playbook_status: PlaybookStatus.optional() }).strict())
  .transform(withoutStructuredData);
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
