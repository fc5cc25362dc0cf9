import { z } from "zod";

/** The contract's longest wait for learning when a publisher asks to wait (admission included). */
export const PUBLISH_WAIT_MS = 240_000;

import { END_AFTER_START_RULE, END_BEFORE_START, endAfterStart, SearchMode, SearchText, Source, Threshold, TimeRange, UnixSeconds, UserId } from "./common.ts";

export const ROLES = ["User", "Agent", "System"] as const;
/** Any letter case on the wire ('agent' → 'Agent'). */
const Role = z.preprocess(
  (value) => (typeof value === "string" ? (ROLES.find((role) => role.toLowerCase() === value.toLowerCase()) ?? value) : value),
  z.enum(ROLES),
);

export const USER_ACTIONS = ["none", "click", "scroll", "type", "copy", "like", "dislike", "retry", "edit", "navigate"] as const;
export const UserAction = z.preprocess((value) => (typeof value === "string" ? value.toLowerCase() : value), z.enum(USER_ACTIONS));

export const LEARNING_KINDS = ["profile", "user_playbook", "agent_playbook"] as const;
export const LearningKind = z.enum(LEARNING_KINDS);
export type LearningKind = z.infer<typeof LearningKind>;

export const EXPERIMENT_ARMS = ["treatment", "holdout"] as const;
export const ExperimentArm = z.enum(EXPERIMENT_ARMS);
export type ExperimentArm = z.infer<typeof ExperimentArm>;

export const TOOL_STATUS_MAX = 100;

export const ToolUsed = z.object({
  tool_name: z.string(),
  tool_data: z.record(z.string(), z.unknown()).default({}),
  /** Coerced leniently (true, 200, "ok" all become text) and cut to 100 characters. */
  status: z
    .unknown()
    .optional()
    .transform((value) =>
      value === undefined || value === null ? null : (typeof value === "string" ? value : JSON.stringify(value)).slice(0, TOOL_STATUS_MAX),
    ),
});

/** Learning ids are text; agent and user playbook ids arrive as numbers too. */
const LearningId = z.union([z.string().min(1), z.number().int().transform(String)]);

export const Citation = z.object({ kind: LearningKind, learning_id: LearningId });

export const RetrievedLearning = z.object({
  kind: LearningKind,
  learning_id: LearningId,
  /** The opaque value search returned with a user playbook, passed back unchanged. */
  exposure_receipt: z.string().min(1).optional(),
});

/**
 * One element of interaction_data_list. Unknown keys are kept by the schema so that publishing can
 * drop them and name them in its warnings (the contract discards them rather than refusing them).
 */
export const InteractionItem = z
  .looseObject({
    created_at: UnixSeconds.optional(),
    role: Role.default("User"),
    content: z.string().default(""),
    shadow_content: z.string().default(""),
    expert_content: z.string().default(""),
    image_encoding: z.string().nullish(),
    user_action: UserAction.default("none"),
    user_action_description: z.string().nullish(),
    interacted_image_url: z.string().nullish(),
    tools_used: z.array(ToolUsed).default([]),
    citations: z.array(Citation).default([]),
    retrieved_learnings: z.array(RetrievedLearning).default([]),
  })
  .superRefine((item, ctx) => {
    if (item.user_action !== "none" && !item.user_action_description?.trim()) {
      ctx.addIssue({ code: "custom", path: ["user_action_description"], message: "required when user_action is not 'none'" });
    }
    if (item.image_encoding && item.interacted_image_url) {
      ctx.addIssue({ code: "custom", path: ["interacted_image_url"], message: "cannot be combined with image_encoding" });
    }
  });
export type InteractionItem = z.infer<typeof InteractionItem>;
export const INTERACTION_FIELDS: ReadonlySet<string> = new Set(Object.keys(InteractionItem.shape));

/** An interaction that says nothing: no text, no image, no action, no tool call. Publishing drops it. */
export function isEmptyInteraction(item: InteractionItem): boolean {
  return (
    item.content.trim() === "" &&
    item.shadow_content.trim() === "" &&
    item.expert_content.trim() === "" &&
    !item.image_encoding &&
    !item.interacted_image_url &&
    item.user_action === "none" &&
    item.tools_used.length === 0
  );
}

/** Query strings carry booleans as text. */
const QueryBoolean = z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean());

export const PublishInteractionRequest = z
  .looseObject({
    user_id: UserId,
    interaction_data_list: z.array(InteractionItem).min(1, "interaction_data_list must hold at least one interaction"),
    session_id: z
      .string()
      .max(255)
      .refine((value) => value.trim() !== "", "session_id must not be empty or blank"),
    source: Source.default(""),
    agent_version: z.string().min(1).max(255).default("agent-v0"),
    skip_aggregation: z.boolean().default(false),
    force_extraction: z.boolean().default(false),
    evaluation_only: z.boolean().default(false),
    override_learning_stall: z.boolean().default(false),
    retrieval_experiment_id: z.string().min(1).max(255).nullish(),
    retrieval_experiment_arm: ExperimentArm.nullish(),
    /** REST clients send it as the query parameter `wait_for_response=true`. */
    wait_for_response: QueryBoolean.default(false),
    session_finished: z
      .boolean()
      .default(false)
      .describe("The contract's completion hint: the session is finished with this request, so its window is due now instead of after the inactivity deadline"),
    request_id: z
      .string()
      .max(255)
      .optional()
      .describe(
        "Sent by clients of the peer service (null there, meaning omitted). The service mints every request id, so a value is discarded with a warning",
      ),
  })
  .superRefine((request, ctx) => {
    if (request.interaction_data_list.every(isEmptyInteraction)) {
      for (const index of request.interaction_data_list.keys()) {
        ctx.addIssue({ code: "custom", path: ["interaction_data_list", index], message: "interaction is empty (every interaction of the batch is)" });
      }
    }
    if (request.evaluation_only && request.force_extraction) {
      ctx.addIssue({
        code: "custom",
        path: ["force_extraction"],
        message: "cannot be combined with evaluation_only (evaluation-only requests are never extracted)",
      });
    }
    if (!request.retrieval_experiment_id !== !request.retrieval_experiment_arm) {
      const missing = request.retrieval_experiment_id ? "retrieval_experiment_arm" : "retrieval_experiment_id";
      ctx.addIssue({ code: "custom", path: [missing], message: "retrieval_experiment_id and retrieval_experiment_arm must be given together" });
    }
  });
export type PublishInteractionRequest = z.infer<typeof PublishInteractionRequest>;
export const PUBLISH_FIELDS: ReadonlySet<string> = new Set(Object.keys(PublishInteractionRequest.shape));

export const PUBLISH_LEARNING_STATUSES = ["done", "deferred"] as const;

export const PublishInteractionResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  request_id: z.string(),
  storage_routing: z.object({
    storage_type: z.string(),
    storage_label: z.string().describe("Where the data lives, credentials masked; on a hosted server (AUTH_MODE=required) the storage type again"),
  }),
  learning_status: z.enum(PUBLISH_LEARNING_STATUSES),
  interactions_created: z.number().int(),
  profiles_created: z.number().int(),
  user_playbooks_created: z.number().int(),
  warnings: z.array(z.string()),
  // The same facts under the names clients of the peer service read.
  storage_type: z.string().describe("storage_routing.storage_type again (clients of the peer service read it flat)"),
  storage_label: z.string().describe("storage_routing.storage_label again (clients of the peer service read it flat)"),
  profiles_added: z.number().int().describe("profiles_created again (the name clients of the peer service read)"),
  profiles_updated: z.number().int().describe("Existing profiles the request's windows merged new detail into (0 unless the caller waited)"),
  playbooks_added: z.number().int().describe("user_playbooks_created again (the name clients of the peer service read)"),
  playbooks_updated: z.number().int().describe("Always 0: learning adds user playbooks and never rewrites one (for clients of the peer service)"),
});
export type PublishInteractionResponse = z.infer<typeof PublishInteractionResponse>;

export const StoredRetrievedLearning = z.object({
  kind: LearningKind,
  learning_id: z.string(),
  exposure_receipt_digest: z.string().nullable(),
  /** True when the receipt was issued by this service for this session and playbook. */
  exposure_verified: z.boolean(),
});

export const Interaction = z.object({
  interaction_id: z.number().int(),
  user_id: z.string(),
  request_id: z.string(),
  session_id: z.string(),
  created_at: z.number().int(),
  role: z.enum(ROLES),
  content: z.string(),
  shadow_content: z.string(),
  expert_content: z.string(),
  image_encoding: z.string().nullable(),
  user_action: z.enum(USER_ACTIONS),
  user_action_description: z.string().describe("Empty when the interaction has none (clients of the peer service require a string here)"),
  interacted_image_url: z.string().describe("Empty when the interaction has none (clients of the peer service require a string here)"),
  tools_used: z.array(z.object({ tool_name: z.string(), tool_data: z.record(z.string(), z.unknown()), status: z.string().nullable() })),
  citations: z.array(z.object({ kind: LearningKind, learning_id: z.string() })),
  retrieved_learnings: z.array(StoredRetrievedLearning),
});
export type Interaction = z.infer<typeof Interaction>;

export const InteractionsResponse = z.object({
  success: z.boolean(),
  interactions: z.array(Interaction),
  msg: z.string().nullable(),
});

/** Request and session ids as filters. */
const IdFilter = z.string().min(1).max(255);

/** Filters a read endpoint does not have are refused (422), never dropped: a caller must not get more than it asked for. */
export const GetInteractionsRequest = z
  .object({
    user_id: UserId,
    top_k: z.number().int().min(1).max(10000).default(100),
    /** Inclusive bounds of the interactions' created_at. */
    ...TimeRange,
    session_id: IdFilter.optional(),
    request_id: IdFilter.optional(),
    /** The exact source of the interactions' requests; empty: any. */
    source: Source.optional(),
  })
  .strict()
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetInteractionsRequest = z.infer<typeof GetInteractionsRequest>;

export const GetAllInteractionsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10000).default(100),
});

export const SearchInteractionsRequest = z
  .object({
    user_id: UserId,
    query: SearchText.refine((value) => value.trim() !== "", "query must not be empty"),
    top_k: z.number().int().min(1).max(100).default(10),
    /** Search only the user's most recent k interactions. */
    most_recent_k: z.number().int().min(1).optional(),
    search_mode: SearchMode.optional(),
    /** Vector-arm similarity floor; unset: the embedding model's default. */
    threshold: Threshold.optional(),
    /** Inclusive bounds of the interactions' created_at. */
    ...TimeRange,
    session_id: IdFilter.optional(),
    request_id: IdFilter.optional(),
    /** The exact source of the interactions' requests; empty: any. */
    source: Source.optional(),
  })
  .strict()
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type SearchInteractionsRequest = z.infer<typeof SearchInteractionsRequest>;

export const LEARNING_STATUSES = ["pending", "processing", "done", "failed", "not_tracked"] as const;
export type LearningStatus = (typeof LEARNING_STATUSES)[number];

export const LearningStatusQuery = z.object({ request_id: z.string().min(1).max(255) });
export const LearningStatusResponse = z.object({
  success: z.boolean(),
  request_id: z.string(),
  status: z.enum(LEARNING_STATUSES),
  reason: z.string().nullable(),
});

export const Request = z.object({
  request_id: z.string(),
  user_id: z.string(),
  session_id: z.string(),
  source: z.string(),
  agent_version: z.string(),
  evaluation_only: z.boolean(),
  created_at: z.number().int(),
});

export const GetRequestsRequest = z
  .object({
    user_id: UserId,
    /** Requests per page, newest first. */
    top_k: z.number().int().min(1).max(1000).default(30),
    /** Requests of the filtered list to skip: the next page starts at offset + top_k. */
    offset: z.number().int().min(0).max(1_000_000).default(0),
    session_id: IdFilter.optional(),
    request_id: IdFilter.optional(),
    /** The requests' exact source; empty: any. */
    source: Source.optional(),
    /** Inclusive bounds of the requests' created_at (when they were published). */
    ...TimeRange,
  })
  .strict()
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetRequestsRequest = z.infer<typeof GetRequestsRequest>;
export const GetRequestsResponse = z.object({
  success: z.boolean(),
  sessions: z.array(
    z.object({
      session_id: z.string(),
      requests: z.array(z.object({ request: Request, interactions: z.array(Interaction) })),
    }),
  ),
  has_more: z.boolean().describe("Whether requests past this page pass the filters (ask again with offset + top_k)"),
  msg: z.string().nullable(),
});

export const DeleteRequestRequest = z.object({ request_id: z.string().min(1).max(255) });

export const DeleteInteractionRequest = z.object({ user_id: UserId, interaction_id: z.number().int().min(1) }).strict();
export const DeleteInteractionResponse = z.object({ success: z.boolean(), message: z.string() });

const NonBlankId = z
  .string()
  .max(255)
  .refine((value) => value.trim() !== "", "must not be empty or blank");

export const FinalizeSessionRequest = z.object({ user_id: UserId, session_id: NonBlankId }).strict();
export const FinalizeSessionResponse = z.object({
  success: z.boolean(),
  /** False when the user has no request in the session that learning reads: there is nothing to finish. */
  accepted: z.boolean(),
  message: z.string(),
  /** The request that now carries the hint (the user's latest of the session); null when not accepted. */
  request_id: z.string().nullable(),
});
export const DeleteSessionRequest = z.object({ session_id: z.string().min(1).max(255) });
export const DeleteRequestsByIdsRequest = z.object({
  request_ids: z.array(z.string().min(1).max(255)).min(1, "request_ids must hold at least one id"),
});
export const DeletedRequestsResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  deleted_requests: z.number().int(),
  deleted_interactions: z.number().int(),
  deleted_requests_count: z.number().int().describe("deleted_requests again, under the name clients of the peer service read"),
});

export const ClearUserDataRequest = z.object({ user_id: UserId });
export const ClearUserDataResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  deleted_counts: z.object({
    interactions: z.number().int(),
    requests: z.number().int(),
    profiles: z.number().int(),
    user_playbooks: z.number().int(),
  }),
});
