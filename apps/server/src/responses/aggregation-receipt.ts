import type { AggregationOperationReceipt } from "@als/contract";
import type { OperationRecord } from "@als/db";
import type { z } from "zod";

/** The wire form of an operation (an allow-list: no lease, no scope). */
export const toReceipt = (operation: OperationRecord): z.input<typeof AggregationOperationReceipt> => ({
  operation_id: operation.operation_id,
  request_id: operation.request_id,
  agent_version: operation.agent_version,
  status: operation.status,
  result: operation.result,
  error_code: operation.error_code,
  attempts: operation.attempts,
  created_at: operation.created_at,
  updated_at: operation.updated_at,
  finished_at: operation.finished_at,
});
