import { z } from "zod";
import { UnixSeconds } from "./common.ts";
import { FILTER_EXECUTIONS, FILTER_OPS, TrafficFilters } from "./data-sources.ts";
import { LEARNING_STATUSES } from "./interactions.ts";

const StreamRevision = z.number().int().min(1).describe("The stream revision last read: a stale one answers 409, re-read and retry");
const LifecycleRevision = z.number().int().min(1).describe("The collection's lifecycle_revision last read (GET .../status): a stale one answers 409");
const MappingRevision = z.number().int().min(1).describe("A validated mapping draft revision (validated_revision of GET .../mapping)");
const HistoryBound = z.number().int().positive();

/** Backfill message units a collection starts with (Limits: backfill). */
export const INITIAL_BACKFILL_UNITS = 5_000;
/** Held records per page (Limits: held records page). */
export const HELD_PAGE_SIZE = 50;
/** Import receipts evidence shows (Limits: evidence receipts). */
export const EVIDENCE_RECEIPTS = 20;

/**
 * ActivateInput: the stream revision and validated mapping revision read, and the history range
 * (Unix seconds, start-inclusive, end-exclusive, 0 < start < end <= now; rule 5). Unset bounds
 * come from the stream's history draft; a draft with history false and no bounds imports no history.
 */
export const ActivateInput = z
  .object({
    stream_revision: StreamRevision,
    mapping_revision: MappingRevision,
    history_start: HistoryBound.optional().describe("Unix seconds, inclusive; unset: the history draft's"),
    history_end: HistoryBound.optional().describe("Unix seconds, exclusive, not in the future; unset: the history draft's"),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.history_start !== undefined && input.history_end !== undefined && input.history_end <= input.history_start) {
      ctx.addIssue({ code: "custom", path: ["history_end"], message: "must be after history_start" });
    }
  });

/**
 * The operations of a collection: `pause` stops backfill and live polling where they are (nothing
 * read is lost); `resume` continues them; `poll_now` reads live traffic at once instead of at the
 * next scheduled poll; `stop` ends the collection for good (imported interactions and receipts stay;
 * delete the connection to free its slot).
 */
export const COLLECTION_OPERATIONS = ["pause", "resume", "poll_now", "stop"] as const;

export const OperationInput = z.object({ lifecycle_revision: LifecycleRevision, operation: z.enum(COLLECTION_OPERATIONS) }).strict();

export const ExtendBackfillInput = z
  .object({
    lifecycle_revision: LifecycleRevision,
    message_units: z.number().int().positive().nullable().describe("The new backfill budget in message units, above the current one; null: all of the history"),
  })
  .strict();

export const TrafficFiltersInput = z.object({ stream_revision: StreamRevision, lifecycle_revision: LifecycleRevision, filters: TrafficFilters }).strict();

export const MappingActivationInput = z.object({ lifecycle_revision: LifecycleRevision, mapping_revision: MappingRevision }).strict();

export const HeldQuery = z.object({ after: z.string().min(1).max(512).optional().describe("The next_cursor of the page before") }).strict();

const Digest = z.string().regex(/^[0-9a-f]{64}$/, "must be the preview_digest retry-preview returned (64 hex digits)");

/** RetryInput: which held records (unset: the oldest 50), under the active mapping revision read. */
export const RetryInput = z
  .object({
    lifecycle_revision: LifecycleRevision,
    mapping_revision: MappingRevision.describe("The active mapping_revision (GET .../status): held records are mapped again with it"),
    trace_ids: z
      .array(z.string().min(1).max(512))
      .min(1)
      .max(HELD_PAGE_SIZE)
      .optional()
      .describe(`Held records to retry (1 to ${HELD_PAGE_SIZE}); unset: the oldest ${HELD_PAGE_SIZE}`),
  })
  .strict();

export const RetryApplyInput = RetryInput.extend({
  preview_digest: Digest.describe("The preview_digest of retry-preview: the dispositions applied must be the ones previewed"),
}).strict();

/** Per phase: traces read, and what became of them. */
const PhaseCounts = z.object({
  read: z.number().int(),
  imported: z.number().int(),
  duplicates: z.number().int().describe("Traces already imported (a re-read page, a reconnect): not imported again"),
  held: z.number().int(),
  excluded: z.number().int().describe("Traces no mapping rule matches: not eligible"),
  spans_read: z.number().int().describe("Supporting spans read as context of eligible traces (rule 11)"),
  spans_bounded: z.number().int().describe("Traces whose supporting spans were cut at the limits (setup-context related_span_limits)"),
});

/**
 * Collection status. `state`: `backfilling` (importing history; live traffic is followed meanwhile),
 * `collecting` (following live traffic; the history is complete, not requested, or waiting for a
 * larger budget), `paused`, `stopped`.
 */
export const COLLECTION_STATES = ["backfilling", "collecting", "paused", "stopped"] as const;

export const CollectionStatus = z.object({
  stream_id: z.string(),
  connection_id: z.string(),
  provider: z.string(),
  region: z.string(),
  external_project_id: z.string(),
  workspace_id: z.string().nullable(),
  activated_at: UnixSeconds.describe("The original activation time; fixed"),
  state: z.enum(COLLECTION_STATES),
  lifecycle_revision: z.number().int(),
  stream_revision: z.number().int(),
  mapping_revision: z.number().int().describe("The active mapping"),
  filters: z.array(z.object({ path: z.string(), op: z.enum(FILTER_OPS), values: z.array(z.string()) })),
  filter_execution: z.enum(FILTER_EXECUTIONS),
  backfill: z.object({
    status: z.enum(["not_requested", "importing", "budget_exhausted", "complete"]),
    history_start: UnixSeconds.nullable(),
    history_end: UnixSeconds.nullable(),
    pages: z.number().int().describe("Pages committed (each a checkpoint)"),
    message_units_used: z.number().int(),
    message_unit_limit: z.number().int().nullable().describe("null: all of the history"),
    counts: PhaseCounts,
  }),
  live: z.object({
    watermark: UnixSeconds.describe("Live traffic started before this has been read"),
    last_polled_at: UnixSeconds.nullable(),
    next_poll_at: UnixSeconds,
    poll_interval_seconds: z.number().int(),
    counts: PhaseCounts,
  }),
  retry: z.object({ queued: z.number().int(), counts: PhaseCounts }),
  held: z.number().int().describe("Records waiting in GET .../held"),
  cooldown_until: UnixSeconds.nullable().describe("The connection's shared cooldown after the provider's rate limit"),
  last_error: z.object({ code: z.string(), message: z.string(), at: UnixSeconds }).nullable(),
  provider_endpoint: z
    .object({
      endpoint: z.string(),
      note: z.string().nullable().describe("Why this endpoint: set when it is a fallback for one the deployment does not serve"),
    })
    .nullable()
    .describe("The provider endpoint the collection reads; null before its first page"),
  evaluation_settings: z.object({
    sampling_rate: z.number(),
    retrieved_learning_sampling_rate: z.number(),
    evaluation_only: z.literal(false).describe("Imported interactions are learned from, not evaluation-only"),
  }),
  updated_at: UnixSeconds,
});

export const HeldPage = z.object({
  records: z.array(
    z.object({
      trace_id: z.string(),
      started_at: UnixSeconds,
      phase: z.enum(["backfill", "live", "retry"]),
      reasons: z.array(z.string()),
      rules: z.array(z.string()),
      status: z.enum(["held", "queued"]).describe("queued: a retry accepted it and the collection imports it"),
      held_at: UnixSeconds,
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const RETRY_DISPOSITIONS = ["import", "keep_held", "discard"] as const;

export const RetryPreview = z.object({
  lifecycle_revision: z.number().int(),
  mapping_revision: z.number().int(),
  dispositions: z.array(
    z.object({
      trace_id: z.string(),
      disposition: z.enum(RETRY_DISPOSITIONS).describe("import: ready under the mapping; keep_held: still held (reasons); discard: no rule matches any more"),
      reasons: z.array(z.string()),
    }),
  ),
  preview_digest: z.string(),
});

export const RetryAccepted = RetryPreview.extend({ queued: z.literal(true) });

export const Evidence = z.object({
  stream_id: z.string(),
  receipts: z.array(
    z.object({
      trace_id: z.string(),
      phase: z.enum(["backfill", "live", "retry"]),
      imported_at: UnixSeconds,
      request_id: z.string().describe("The request the import created"),
      user_id: z.string(),
      session_id: z.string().nullable(),
      rule: z.string().nullable().describe("The mapping rule that matched"),
      mapping_revision: z.number().int().nullable(),
      message_units: z.number().int(),
      learning_status: z.enum(LEARNING_STATUSES),
      learning_reason: z.string().nullable(),
    }),
  ),
});

export type CollectionStatus = z.output<typeof CollectionStatus>;
export type HeldPage = z.output<typeof HeldPage>;
export type RetryPreview = z.output<typeof RetryPreview>;
export type Evidence = z.output<typeof Evidence>;
