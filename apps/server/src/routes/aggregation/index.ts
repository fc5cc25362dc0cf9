import { getAggregationOperation } from "./get-aggregation-operation.ts";
import { runPlaybookAggregation } from "./run-playbook-aggregation.ts";
import { startAggregationOperation } from "./start-aggregation-operation.ts";

export const aggregationOperations = [runPlaybookAggregation, startAggregationOperation, getAggregationOperation];
