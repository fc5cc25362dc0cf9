import { z } from "zod";

export const OPERATION_STATUSES = ["queued", "running", "retrying", "succeeded", "failed"] as const;

/** The persisted receipt of an aggregation operation; failures carry a safe error code only. */
export const AggregationOperationReceipt = z.object({
  operation_id: z.string(),
  request_id: z.string(),
  agent_version: z.string(),
  status: z.enum(OPERATION_STATUSES),
  /** Counts of what a succeeded operation did (zero output included); null until then. */
  result: z.record(z.string(), z.number()).nullable(),
  error_code: z.string().nullable(),
  attempts: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  finished_at: z.number().int().nullable(),
});

export const StartAggregationOperationRequest = z.object({
  request_id: z.string().min(1).max(255),
  agent_version: z.string().min(1).max(255),
});

export const AggregationOperationQuery = z.object({ operation_id: z.string().min(1).max(255) });

export const RunPlaybookAggregationRequest = z.object({
  agent_version: z.string().min(1).max(255),
  /** Accepted for compatibility and ignored. */
  playbook_name: z.string().optional(),
  wait_for_response: z.boolean().default(true),
});

export const RunPlaybookAggregationResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  operation: AggregationOperationReceipt,
});
