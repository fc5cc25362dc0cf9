import {
  AggregationOperationQuery,
  AggregationOperationReceipt,
  RunPlaybookAggregationRequest,
  RunPlaybookAggregationResponse,
  StartAggregationOperationRequest,
} from "../aggregation.ts";
import { defineResource } from "../endpoint.ts";

export const aggregationEndpoints = defineResource("aggregation", {
  run: {
    method: "POST",
    path: "/api/run_playbook_aggregation",
    summary: "Aggregate an agent version's user playbooks now; with wait_for_response (default) answer when it has finished",
    input: RunPlaybookAggregationRequest,
    output: RunPlaybookAggregationResponse,
    errors: ["conflict", "llm_unavailable"],
  },
  get: {
    method: "GET",
    path: "/api/playbook_aggregation_operations/:operation_id",
    summary: "The receipt of an aggregation operation (404 when unknown or another project's)",
    input: AggregationOperationQuery,
    output: AggregationOperationReceipt,
    errors: ["not_found"],
  },
  start: {
    method: "POST",
    path: "/api/playbook_aggregation_operations",
    summary: "Start a durable aggregation of an agent version's user playbooks (202 with the receipt; idempotent by request_id)",
    input: StartAggregationOperationRequest,
    output: AggregationOperationReceipt,
    errors: ["conflict"],
    successStatus: 202,
  },
});
