import { endpoints } from "@als/contract";
import { getAggregationOperation } from "@als/core";
import { implement } from "../../implement.ts";
import { toReceipt } from "../../responses/aggregation-receipt.ts";

export default implement(endpoints.aggregation.get, {
  async handle({ deps, scope }, input) {
    return toReceipt(await getAggregationOperation(deps, scope, input.operation_id));
  },
});
