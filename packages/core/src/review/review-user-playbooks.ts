import { playbookReviews, type Scope, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { requireLlm } from "../generation/generate-window.ts";
import { queueGenerationRun } from "../generation/queue-generation-run.ts";
import { decideReview, type ReviewResult } from "./decide-review.ts";

export interface ReviewRequest {
  start_time: number;
  end_time: number;
  top_k: number;
  report_only: boolean;
}

export interface ReviewAnswer {
  run_id: string;
  /** Report mode: a decision per playbook; apply mode: none yet. */
  results: ReviewResult[];
  /** How many playbooks the review covers. */
  selected: number;
}

/**
 * Reviews the CURRENT user playbooks created in a time range, newest first. Report mode decides
 * each inline and writes nothing. Apply mode answers at once with its run id, the id of a durable
 * generation run that decides and commits one playbook at a time (see applyReviews).
 */
export async function reviewUserPlaybooks(deps: CoreDeps, scope: Scope, request: ReviewRequest): Promise<ReviewAnswer> {
  const llm = requireLlm(deps);
  const candidates = await userPlaybooks.listUserPlaybooks(
    deps.db,
    scope,
    { statuses: ["CURRENT"], start: request.start_time, end: request.end_time },
    request.top_k,
  );
  if (request.report_only) {
    const results: ReviewResult[] = [];
    for (const playbook of candidates) results.push(await decideReview({ ...deps, llm }, scope, playbook));
    return { run_id: crypto.randomUUID(), results, selected: candidates.length };
  }
  // The candidates are fixed now: an edit's replacement, created during the run, is not reviewed by it.
  const run = await queueGenerationRun(
    deps,
    scope,
    {
      kind: "review_apply",
      extractor: null,
      params: { user_playbook_ids: candidates.map((p) => p.user_playbook_id) },
      counts: { accept: 0, reject: 0, edit: 0, skip: 0 },
    },
    (tx, runId) => playbookReviews.insertReviewRun(tx, scope, runId, deps.now()),
  );
  return { run_id: run.run_id, results: [], selected: candidates.length };
}
