import { endpoints } from "@als/contract";
import { llmCosts } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.learning.costs, {
  async handle({ deps, scope }, input) {
    const report = await llmCosts(deps, scope, {
      ...(input.start_time !== undefined && { start: input.start_time }),
      ...(input.end_time !== undefined && { end: input.end_time }),
    });
    return { success: true, start_time: report.start, end_time: report.end, costs: report.costs, total_cost_usd: report.totalCostUsd };
  },
});
