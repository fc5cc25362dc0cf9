import { z } from "zod";
import { END_AFTER_START_RULE, END_BEFORE_START, endAfterStart, Source, TimeRange, UserId } from "./common.ts";

/** Legacy selectors the contract still accepts: every extractor of the kind runs. */
const IgnoredNames = z.array(z.string()).nullish();
const AgentVersion = z.string().min(1).max(255);

export const RerunProfileGenerationRequest = z
  .object({
    /** Unset: every user of the project. */
    user_id: UserId.optional(),
    /** Inclusive bounds of the interactions' created_at. */
    ...TimeRange,
    /** The exact source of the interactions' requests. */
    source: Source.optional(),
    extractor_names: IgnoredNames,
    wait_for_response: z.boolean().default(false),
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type RerunProfileGenerationRequest = z.infer<typeof RerunProfileGenerationRequest>;

/** The run a rerun started, as the peer service's clients identify it when they wait. */
const OperationId = z
  .string()
  .describe("The generation run's id: GET /api/get_operation_status?service_name=… reports it as operation_status.request_params.operation_id");

export const RerunProfileGenerationResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  operation_id: OperationId,
  /** Only when the caller waited: how many PENDING profiles the rerun wrote. */
  profiles_generated: z.number().int().optional(),
});

export const RerunPlaybookGenerationRequest = z
  .object({
    agent_version: AgentVersion,
    ...TimeRange,
    source: Source.optional(),
    playbook_name: z.string().nullish(),
    wait_for_response: z.boolean().default(false),
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type RerunPlaybookGenerationRequest = z.infer<typeof RerunPlaybookGenerationRequest>;

export const RerunPlaybookGenerationResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  operation_id: OperationId,
  /** Only when the caller waited: how many PENDING user playbooks the rerun wrote. */
  user_playbooks_generated: z.number().int().optional(),
  playbooks_generated: z.number().int().optional().describe("user_playbooks_generated again (the name clients of the peer service read)"),
});

export const ManualProfileGenerationRequest = z.object({
  user_id: UserId.optional(),
  source: Source.optional(),
  extractor_names: IgnoredNames,
});

export const ManualPlaybookGenerationRequest = z.object({
  agent_version: AgentVersion,
  source: Source.optional(),
  playbook_name: z.string().nullish(),
});

export const UpgradeAllProfilesRequest = z
  .object({
    user_id: UserId.optional(),
    /**
     * Accepted for compatibility; both values act alike: a user without PENDING profiles is never
     * upgraded, since archiving their profiles with no replacement would only empty them.
     */
    only_affected_users: z.boolean().default(true),
  })
  .optional();

export const UpgradeAllProfilesResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  upgraded_users: z.number().int(),
  profiles_promoted: z.number().int(),
  profiles_archived: z.number().int(),
  profiles_deleted: z.number().int(),
});

export const UpgradeAllUserPlaybooksRequest = z
  .object({
    /** Unset: every agent version. */
    agent_version: AgentVersion.optional(),
    /** Only the user playbooks of this name move. */
    playbook_name: z.string().min(1).optional(),
  })
  .optional();

export const UpgradeAllUserPlaybooksResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  upgraded_users: z.number().int(),
  user_playbooks_promoted: z.number().int(),
  user_playbooks_archived: z.number().int(),
  user_playbooks_deleted: z.number().int(),
});

export const OPERATION_SERVICE_NAMES = ["profile_generation", "playbook_generation", "feedback_generation"] as const;

export const OperationStatusQuery = z
  .object({
    /** Which kind of generation: feedback_generation is reflexio-ai 0.2.8's name of playbook_generation. */
    service_name: z.enum(OPERATION_SERVICE_NAMES).default("profile_generation"),
  })
  .strict();

/** Where the latest rerun or manual generation of a kind stands, in the shape of the peer service's OperationStatusInfo. */
export const OperationStatusInfo = z.object({
  service_name: z.enum(OPERATION_SERVICE_NAMES),
  /** queued, running and retrying runs are in_progress; a run is never cancelled here. */
  status: z.enum(["in_progress", "completed", "failed", "cancelled"]),
  /** Unix seconds: when the run was accepted. */
  started_at: z.number().int(),
  completed_at: z.number().int().nullable(),
  /** Users the run reads: those with matching interactions while it runs, those it processed once done. */
  total_users: z.number().int(),
  processed_users: z.number().int(),
  failed_users: z.number().int(),
  /** operation_id (the run id a rerun answered), kind (rerun or manual) and the run's filters. */
  request_params: z.record(z.string(), z.unknown()),
  /** total_generated: learnings written so far; users and learnings_created: the run's own counts. */
  stats: z.record(z.string(), z.number()),
  /** A failed run's safe error code (never a provider's message). */
  error_message: z.string().nullable(),
  progress_percentage: z.number().min(0).max(100),
});

export const OperationStatusResponse = z.object({
  success: z.boolean(),
  /** Null when no generation of that kind has run in the project. */
  operation_status: OperationStatusInfo.nullable(),
  msg: z.string(),
});
