import { endpoints } from "@als/contract";
import { startAggregationOperation } from "@als/core";
import { implement } from "../../implement.ts";
import { toReceipt } from "../../responses/aggregation-receipt.ts";

export default implement(endpoints.aggregation.start, {
  async handle({ deps, scope }, input) {
    return toReceipt(await startAggregationOperation(deps, scope, input));
  },
});
