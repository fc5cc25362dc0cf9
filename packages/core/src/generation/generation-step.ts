import { type GenerationRunRecord, generationRuns, playbookReviews, type Scope, type Sql } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { NoLlmProvider, settleFailure } from "../durable/failure-policy.ts";
import { runUntilDone } from "../durable/run-until-done.ts";
import { LeaseLost, outcomeOfRun, type StepOutcome } from "../durable/step-outcome.ts";
import { applyReviews } from "../review/apply-reviews.ts";
import { generateLatestWindows } from "./generate-latest-windows.ts";
import type { GenerationDeps } from "./generate-window.ts";
import { regenerateUsers } from "./regenerate-users.ts";
import { GENERATION_LEASE_SECONDS, RunCursor } from "./run-cursor.ts";

/**
 * One attempt at a generation run: takes it under its lease, works from its progress to the end,
 * committing as it goes (see RunCursor), and marks it succeeded with its counts. Safe to repeat
 * after a crash: the next attempt goes on after what the last one committed. Failures leave a safe
 * error code and retry with backoff (a bounded number of attempts), except a review's, which stops.
 * When `stopping` is aborted (the worker shuts down), the attempt ends at its next commit and puts
 * the run back in the queue.
 */
export async function runGenerationStep(
  deps: CoreDeps,
  scope: Scope,
  runId: string,
  leaseToken: string = crypto.randomUUID(),
  stopping?: AbortSignal,
): Promise<StepOutcome> {
  const now = deps.now();
  const run = await generationRuns.claimRun(deps.db, runId, leaseToken, now, GENERATION_LEASE_SECONDS);
  if (!run) return outcomeOfRun(await generationRuns.findRun(deps.db, scope, runId), now);
  const cursor = new RunCursor(deps, runId, leaseToken, run.progress, stopping);
  try {
    if (!deps.llm) throw new NoLlmProvider();
    await workOn({ ...deps, llm: deps.llm }, scope, run, cursor);
    await deps.db.transaction(async (tx) => {
      if (!(await generationRuns.completeRun(tx, runId, leaseToken, cursor.counts, deps.now()))) throw new LeaseLost();
      await recordEnd(tx, run, null, deps.now());
    });
    return { next: "done" };
  } catch (error) {
    if (error instanceof LeaseLost) return outcomeOfRun(await generationRuns.findRun(deps.db, scope, runId), deps.now());
    if (stopping?.aborted) {
      await generationRuns.releaseRun(deps.db, runId, leaseToken, deps.now());
      return { next: "busy" };
    }
    // The contract's rule for an applied review: a failure stops the run, keeping earlier commits.
    const { code, retryAt, unexpected } = settleFailure(error, run.attempts, deps.now(), { final: run.kind === "review_apply" });
    if (retryAt !== null) {
      await generationRuns.retryRun(deps.db, runId, leaseToken, { errorCode: code, retryAt }, deps.now());
      return { next: "retry", at: retryAt, unexpected };
    }
    await deps.db.transaction(async (tx) => {
      if (await generationRuns.failRun(tx, runId, leaseToken, code, deps.now())) await recordEnd(tx, run, code, deps.now());
    });
    return { next: "done", unexpected };
  }
}

/** The work of the run's kind, from its progress to its end. */
function workOn(deps: GenerationDeps, scope: Scope, run: GenerationRunRecord, cursor: RunCursor): Promise<void> {
  switch (run.kind) {
    case "rerun":
      return regenerateUsers(deps, scope, run, cursor);
    case "manual":
      return generateLatestWindows(deps, scope, run, cursor);
    case "review_apply":
      return applyReviews(deps, scope, run, cursor);
  }
}

/** What else a run ends with, in the transaction that ends it: a review's own record of its outcome. */
async function recordEnd(tx: Sql, run: GenerationRunRecord, errorCode: string | null, now: number): Promise<void> {
  if (run.kind === "review_apply") await playbookReviews.finishReviewRun(tx, run.run_id, { status: errorCode ? "failed" : "completed", errorCode }, now);
}

/** Works on a run here until it is done or the wait's budget is spent (see runUntilDone); returns it as it stands. */
export async function runGenerationNow(deps: CoreDeps, scope: Scope, runId: string): Promise<GenerationRunRecord> {
  await runUntilDone(() => runGenerationStep(deps, scope, runId), deps.now);
  return (await generationRuns.findRun(deps.db, scope, runId))!;
}
