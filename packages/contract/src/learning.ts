import { z } from "zod";
import { UnixSeconds, UserId } from "./common.ts";

export const StallStateResponse = z.object({
  success: z.boolean(),
  stalled: z.boolean(),
  /** Why the provider refused: 'auth_error' (credentials) or 'billing_error'; null when not stalled (the peer service's values, which its clients parse). */
  reason: z.enum(["auth_error", "billing_error"]).nullable(),
  error_message: z.string().nullable(),
  notified_in_cc: z.boolean(),
  stalled_at: z.number().int().nullable(),
});

export const MarkNotifiedResponse = z.object({
  success: z.boolean(),
  /** False when there is no stall to be notified of. */
  notified_in_cc: z.boolean(),
});

export const Extractor = z.enum(["profile", "playbook"]);

export const ListHeldWindowsRequest = z.object({ user_id: UserId.optional().describe("Unset: every user of the project") }).strict();

export const HeldWindow = z.object({
  user_id: z.string(),
  extractor: Extractor,
  from_seq: z.number().int().describe("The first position of the window in the user's interaction stream"),
  through_seq: z.number().int().describe("Its last position; later windows of this extractor wait behind it"),
  input_tokens: z.number().int().describe("What the window still needed after every reduction"),
  budget_tokens: z.number().int().describe("The budget it did not fit"),
  held_at: UnixSeconds,
  request_ids: z.array(z.string()).describe("The requests whose interactions the window holds (learning_status: failed, input_budget_exceeded)"),
});

export const ListHeldWindowsResponse = z.object({ success: z.boolean(), held_windows: z.array(HeldWindow).describe("Oldest first") });

export const RecoverHeldWindowRequest = z
  .object({
    user_id: UserId,
    extractor: Extractor,
    action: z.enum(["skip", "retry"]).describe("skip: never learn from the window, go on after it; retry: run it again with budget_tokens"),
    budget_tokens: z.number().int().min(1).max(2_000_000).optional().describe("Required for retry: larger than the budget the window was held at"),
  })
  .strict()
  .refine((input) => input.action !== "retry" || input.budget_tokens !== undefined, {
    message: "a retry needs budget_tokens, larger than the budget the window was held at",
    path: ["budget_tokens"],
  });

export const RecoverHeldWindowResponse = z.object({ success: z.boolean(), action: z.enum(["skip", "retry"]), recovered: HeldWindow });

/** How far back a cost report reaches at most: a year of days, per stage and model. */
export const MAX_COST_RANGE_SECONDS = 366 * 86_400;

export const LlmCostsRequest = z
  .object({
    start_time: UnixSeconds.optional().describe("Inclusive; unset: 30 days before end_time"),
    end_time: UnixSeconds.optional().describe("Exclusive; unset: now"),
  })
  .strict();

export const LlmCostsResponse = z.object({
  success: z.boolean(),
  start_time: UnixSeconds,
  end_time: UnixSeconds,
  costs: z
    .array(
      z.object({
        day: z.string().describe("UTC day, YYYY-MM-DD"),
        stage: z
          .string()
          .describe(
            "profile_extraction, playbook_extraction, their _deduplication, aggregation, review, reformulation, agent_success_evaluation, retrieved_learning_evaluation, shadow_comparison",
          ),
        model: z.string(),
        calls: z.number().int(),
        input_tokens: z.number().int(),
        output_tokens: z.number().int(),
        cost_usd: z.number().nullable().describe("null when the model's price is unknown"),
      }),
    )
    .describe("Newest day first"),
  total_cost_usd: z.number().describe("Sum of the known costs"),
});

/** The kinds of durable work the backlog counts, and the statuses of work not finished well. */
export const BACKLOG_WORK_KINDS = ["aggregation", "generation_run", "purge", "evaluation_job", "data_source_sample", "learning"] as const;
export const BACKLOG_WORK_STATUSES = ["queued", "running", "retrying", "failed"] as const;

export const LearningBacklogResponse = z.object({
  success: z.boolean(),
  projects: z
    .array(
      z.object({
        project_id: z.string(),
        oldest_pending_at: UnixSeconds.describe("When the oldest request not yet learned from was published"),
        lag_seconds: z.number().int().describe("How long that request has waited"),
        waiting_users: z.number().int().describe("Users with requests not yet learned from"),
      }),
    )
    .describe("The organisation's projects with learning still to do, the longest waiting first; a project not listed waits for nothing"),
  durable_work: z
    .array(z.object({ project_id: z.string(), kind: z.enum(BACKLOG_WORK_KINDS), status: z.enum(BACKLOG_WORK_STATUSES), count: z.number().int() }))
    .describe("Durable work of the organisation's projects not finished well: queued, running, retrying (waiting for its next try) and failed for good"),
  temporal_ui: z
    .object({ workflows_url: z.string() })
    .nullable()
    .describe("Full mode with TEMPORAL_UI_URL set: where the service's workflows are listed; null otherwise"),
});
export type LearningBacklogResponse = z.output<typeof LearningBacklogResponse>;
