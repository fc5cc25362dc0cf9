import { AggregationOperationQuery, AggregationOperationReceipt } from "@als/contract";
import { getAggregationOperation as find } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { toReceipt } from "./receipt.ts";

export const getAggregationOperation = defineOperation({
  procedure: "aggregation.get",
  method: "GET",
  path: "/api/playbook_aggregation_operations/:operation_id",
  summary: "The receipt of an aggregation operation (404 when unknown or another project's)",
  input: AggregationOperationQuery,
  output: AggregationOperationReceipt,
  async handle({ deps, scope }, input) {
    return toReceipt(await find(deps, scope, input.operation_id));
  },
});
