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

export const RerunProfileGenerationResponse = z.object({
  success: z.boolean(),
  message: z.string(),
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
  /** Only when the caller waited: how many PENDING user playbooks the rerun wrote. */
  user_playbooks_generated: z.number().int().optional(),
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
