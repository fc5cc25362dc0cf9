import { AggregationOperationReceipt, StartAggregationOperationRequest } from "@als/contract";
import { startAggregationOperation as start } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { toReceipt } from "./receipt.ts";

export const startAggregationOperation = defineOperation({
  procedure: "aggregation.start",
  method: "POST",
  path: "/api/playbook_aggregation_operations",
  summary: "Start a durable aggregation of an agent version's user playbooks (202 with the receipt; idempotent by request_id)",
  input: StartAggregationOperationRequest,
  output: AggregationOperationReceipt,
  successStatus: 202,
  async handle({ deps, scope }, input) {
    return toReceipt(await start(deps, scope, input));
  },
});
