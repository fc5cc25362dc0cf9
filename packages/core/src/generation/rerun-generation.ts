import { AppError } from "@als/contract";
import type { Extractor, GenerationRunRecord, interactions, Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { requireLlm } from "./generate-window.ts";
import { runGenerationNow } from "./generation-step.ts";
import { queueGenerationRun } from "./queue-generation-run.ts";

export interface RerunAnswer {
  runId: string;
  /** Set when the caller waited and the run succeeded: how many PENDING learnings it wrote. */
  generated?: number;
}

/**
 * Regenerates a kind of learning from every interaction passing the filters (every user's when
 * none is named) as a durable generation run (see regenerateUsers), and returns its id. With
 * `wait`, this process works on the run until it is done, within a budget, instead of polling the
 * run while the orchestrator works on it: the caller asked for the result, and it should not hang
 * on a worker's queue (or on no worker at all) while this process can do the work. The run's lease
 * lets only one of them work on it; a run this process leaves unfinished (budget spent, or a crash)
 * is finished by the orchestrator like any other.
 */
export async function rerunGeneration(
  deps: CoreDeps,
  scope: Scope,
  kind: Extractor,
  filters: interactions.GenerationFilters,
  wait: boolean,
): Promise<RerunAnswer> {
  requireLlm(deps);
  const queued = await queueGenerationRun(deps, scope, { kind: "rerun", extractor: kind, params: filters, counts: { users: 0, learnings_created: 0 } });
  if (!wait) return { runId: queued.run_id };
  const run = await runGenerationNow(deps, scope, queued.run_id);
  if (run.status === "failed") throw runFailure(run);
  return { runId: run.run_id, ...(run.status === "succeeded" && { generated: run.result!.learnings_created }) };
}

/** A failed run as a waiting caller sees it: the provider's failure, or ours. */
function runFailure(run: GenerationRunRecord): AppError {
  const message = `generation run ${run.run_id} failed: ${run.error_code}`;
  return run.error_code === "internal_error" ? new AppError("internal_error", message) : new AppError("llm_unavailable", message);
}
