import { AppError, MAX_COST_RANGE_SECONDS } from "@als/contract";
import { learning, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

const DEFAULT_RANGE_SECONDS = 30 * 86_400;

/**
 * What learning (and every other LLM stage) cost the project, per UTC day, stage and model, over
 * [start, end): by default the last 30 days. 422 when the range is inverted or longer than a year.
 */
export async function llmCosts(deps: CoreDeps, scope: Scope, range: { start?: number; end?: number }) {
  // Unset: through the current second (the range's end is exclusive).
  const end = range.end ?? deps.now() + 1;
  // The default start never goes before the epoch: the answer's start_time is Unix seconds too.
  const start = range.start ?? Math.max(0, end - DEFAULT_RANGE_SECONDS);
  if (start >= end) {
    if (range.start === undefined) throw AppError.validation([{ loc: ["body", "end_time"], msg: "must be after 0 (the earliest start)", type: "value_error" }]);
    throw AppError.validation([{ loc: ["body", "start_time"], msg: "must be before end_time", type: "value_error" }]);
  }
  if (end - start > MAX_COST_RANGE_SECONDS) {
    throw AppError.validation([{ loc: ["body", "start_time"], msg: "the range may span at most 366 days", type: "value_error" }]);
  }
  const costs = await learning.llmCostsByDay(deps.db, scope, { from: start, to: end });
  return { start, end, costs, totalCostUsd: costs.reduce((sum, row) => sum + (row.cost_usd ?? 0), 0) };
}
