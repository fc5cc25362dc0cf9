import { z } from "zod";

export const PENDING_TOOL_CALL_STATUSES = ["pending", "resolved", "expired", "superseded", "cancelled"] as const;
export const PendingToolCallStatus = z.enum(PENDING_TOOL_CALL_STATUSES);

/** The contract's list limit (Limits: 1 to 500, default 100). */
export const MAX_PENDING_TOOL_CALLS = 500;

const Id = z.string().min(1).max(255);
const IsoTime = z.string().describe("ISO 8601, UTC");
/** Seconds the answer holds: it is reused for the same question (scope) until then. */
const ValidForSeconds = z
  .number()
  .int()
  .gt(0)
  .max(10 * 365 * 86_400);

/** PendingToolCallResponse: a question an extraction run asked a person. */
export const PendingToolCall = z.object({
  id: z.string(),
  org_id: z.string(),
  scope: z.record(z.string(), z.unknown()).describe("What the question is about: project_id, user_id, extractor and the question normalised"),
  scope_hash: z.string().describe("Stable hash of scope: an answer of the same scope still valid is reused instead of asking again"),
  tool_name: z.string(),
  dedup_key: z.string().describe("Identical pending questions (scope, answer format, args) are asked once"),
  status: PendingToolCallStatus,
  question_text: z.string(),
  user_id: z.string().nullable(),
  args: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  answer_format: z.string().nullable(),
  result: z.record(z.string(), z.unknown()).nullable().describe("{answer} when answered; {not_applicable: true} when marked not applicable"),
  superseded_by: z.string().nullable(),
  created_at: IsoTime,
  resolved_at: IsoTime.nullable(),
  expires_at: IsoTime.describe("A question still pending then becomes expired and its runs go on without it (seven days)"),
  cache_until: IsoTime.nullable(),
  valid_until: IsoTime.nullable(),
});
export type PendingToolCall = z.infer<typeof PendingToolCall>;

export const ListPendingToolCallsRequest = z
  .object({
    status: PendingToolCallStatus.optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PENDING_TOOL_CALLS).default(100),
  })
  .strict();
export const PendingToolCallList = z.object({ pending_tool_calls: z.array(PendingToolCall).describe("Newest first") });

export const PendingToolCallPath = z.object({ pending_tool_call_id: Id }).strict();

export const ResolvePendingToolCallRequest = z
  .object({
    pending_tool_call_id: Id,
    answer: z.string().min(1).optional().describe("Wrapped as {answer}"),
    result: z.record(z.string(), z.unknown()).optional(),
    valid_for_seconds: ValidForSeconds.optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if ((input.answer === undefined) === (input.result === undefined)) {
      ctx.addIssue({ code: "custom", path: ["answer"], message: "give exactly one of answer and result" });
    }
  });

export const UpdateAnswerRequest = z
  .object({ pending_tool_call_id: Id, answer: z.string().trim().min(1, "must not be empty"), valid_for_seconds: ValidForSeconds.optional() })
  .strict();

export const NotApplicableRequest = z.object({ pending_tool_call_id: Id, valid_for_seconds: ValidForSeconds.optional() }).strict();
