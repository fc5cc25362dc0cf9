import type { AggregationOperationReceipt } from "@als/contract";
import type { OperationRecord } from "@als/db";
import type { z } from "zod";

/** The counts of a succeeded operation, under our names and the peer service's. */
function toResult(result: Record<string, number>): z.input<typeof AggregationOperationReceipt>["result"] {
  const count = (name: string) => result[name] ?? 0;
  return {
    user_playbooks_considered: count("user_playbooks_considered"),
    clusters: count("clusters"),
    clusters_changed: count("clusters_changed"),
    agent_playbooks_created: count("agent_playbooks_created"),
    user_playbooks_processed: count("user_playbooks_considered"),
    clusters_found: count("clusters"),
    playbooks_generated: count("agent_playbooks_created"),
  };
}

/** The wire form of an operation (an allow-list: no lease, no scope). */
export const toReceipt = (operation: OperationRecord): z.input<typeof AggregationOperationReceipt> => ({
  operation_id: operation.operation_id,
  request_id: operation.request_id,
  agent_version: operation.agent_version,
  status: operation.status,
  result: operation.result && toResult(operation.result),
  error_code: operation.error_code,
  error: operation.error_code,
  attempts: operation.attempts,
  created_at: operation.created_at,
  updated_at: operation.updated_at,
  finished_at: operation.finished_at,
  completed_at: operation.finished_at,
});
