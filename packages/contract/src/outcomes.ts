import { z } from "zod";
import { END_AFTER_START_RULE, END_BEFORE_START, endAfterStart, Source, TimeRange, UnixSeconds, UserId } from "./common.ts";

export const OUTCOMES = ["success", "failure", "unknown"] as const;
export const Outcome = z.enum(OUTCOMES);

/** Large enough for any tag of a session, small enough to keep a list of outcomes cheap to return. */
const MAX_METADATA_BYTES = 16_384;

export const RecordSessionOutcomeRequest = z
  .object({
    session_id: z.string().trim().min(1, "must not be blank").max(255),
    outcome: Outcome,
    occurred_at: UnixSeconds,
    label: z.string().min(1).max(255).nullish(),
    value: z.number().finite().nullish().describe("Returned, not filterable"),
    metadata: z
      .record(z.string(), z.unknown())
      .nullish()
      .refine((metadata) => metadata == null || JSON.stringify(metadata).length <= MAX_METADATA_BYTES, `must be at most ${MAX_METADATA_BYTES} bytes as JSON`)
      .describe("Returned, not filterable"),
  })
  .strict()
  .describe("source and user_id are not accepted: they come from the session's earliest published request");
export type RecordSessionOutcomeRequest = z.infer<typeof RecordSessionOutcomeRequest>;

/** The identities of a recorded row; the four may be null on a legacy row. */
const OutcomeIdentities = {
  outcome_id: z.string().nullable(),
  outcome_revision: z.number().int().nullable(),
  outcome_contract_digest: z.string().nullable().describe("Opaque: the digest of the reported payload under this contract version"),
  finalized_trajectory_digest: z.string().nullable().describe("Opaque: the digest of the session's requests when the outcome was recorded"),
};

export const RecordSessionOutcomeResponse = z.object({
  success: z.boolean(),
  recorded: z.boolean().describe("false for an exact retry (success true) and for a refused change (success false)"),
  ...OutcomeIdentities,
  reason: z.string().optional().describe("Why success is false: 'conflicting_finalization' when the session already has a different final outcome"),
});

export const SessionOutcome = z.object({
  session_id: z.string(),
  outcome: Outcome,
  occurred_at: UnixSeconds,
  label: z.string().nullable(),
  value: z.number().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  source: z.string(),
  user_id: z.string(),
  is_inferred: z
    .boolean()
    .describe(
      "True for the service's placeholder, inferred by an LLM judge for a session where a playbook was served or cited (after about ten minutes of quiet, or the user's reply after the playbook was used); metadata holds inference_reason and inference_prompt. Your own report displaces it",
    ),
  ...OutcomeIdentities,
  trajectory_through_request_id: z
    .string()
    .nullable()
    .describe("The last request an inferred outcome covers (it moves as the session goes on); null for a caller-reported outcome"),
  created_at: UnixSeconds.describe("When the row was written"),
});

export const GetSessionOutcomesRequest = z
  .object({
    session_ids: z.array(z.string().min(1).max(255)).max(100).optional().describe("Only these sessions"),
    user_id: UserId.optional(),
    source: Source.optional(),
    outcome: Outcome.optional(),
    label: z.string().min(1).max(255).optional(),
    ...TimeRange,
    top_k: z.number().int().min(1).max(1000).default(100),
    offset: z.number().int().min(0).default(0).describe("Outcomes to skip, for paging"),
  })
  .strict()
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetSessionOutcomesRequest = z.infer<typeof GetSessionOutcomesRequest>;

export const GetSessionOutcomesResponse = z.object({
  success: z.boolean(),
  outcomes: z.array(SessionOutcome),
  session_outcomes: z.array(SessionOutcome).describe("outcomes again, under the name clients of the peer service read"),
});
