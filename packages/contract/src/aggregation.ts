import { z } from "zod";

export const OPERATION_STATUSES = ["queued", "running", "retrying", "succeeded", "failed"] as const;

/** What a succeeded operation did (zero output included). */
export const AggregationResult = z.object({
  user_playbooks_considered: z.number().int(),
  clusters: z.number().int(),
  /** Clusters whose members changed since the last run: the ones summarized again. */
  clusters_changed: z.number().int(),
  agent_playbooks_created: z.number().int(),
  user_playbooks_processed: z.number().int().describe("user_playbooks_considered again (the name clients of the peer service read)"),
  clusters_found: z.number().int().describe("clusters again (the name clients of the peer service read)"),
  playbooks_generated: z.number().int().describe("agent_playbooks_created again (the name clients of the peer service read)"),
});

/** The persisted receipt of an aggregation operation; failures carry a safe error code only. */
export const AggregationOperationReceipt = z.object({
  operation_id: z.string(),
  request_id: z.string(),
  agent_version: z.string(),
  status: z.enum(OPERATION_STATUSES),
  /** Counts of what a succeeded operation did; null until then. */
  result: AggregationResult.nullable(),
  error_code: z.string().nullable(),
  error: z.string().nullable().describe("error_code again (the name clients of the peer service read)"),
  attempts: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  finished_at: z.number().int().nullable(),
  completed_at: z.number().int().nullable().describe("finished_at again (the name clients of the peer service read)"),
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
