import { type GenerationProgress, generationRuns, type Sql } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { LeaseLost } from "../durable/step-outcome.ts";

/** Longer than one window's LLM calls take: every commit of a run extends its lease by this much. */
export const GENERATION_LEASE_SECONDS = 600;

/**
 * A worker's hold on a generation run, and the progress it last committed. Every commit of the
 * run's output calls `advance` in its transaction: the progress moves only from what this worker
 * last committed and only while it holds the lease, so a worker that lost the run (another took it
 * over after the lease expired) commits nothing more, and the one that took it over goes on after
 * what was committed. A transaction that fails after its `advance` ends the attempt: the next one
 * reads the progress again. Once `stopping` is aborted (its process shuts down), the next commit is
 * refused with the abort's reason instead: the run is left to the next worker.
 */
export class RunCursor {
  constructor(
    private readonly deps: Pick<CoreDeps, "now">,
    readonly runId: string,
    readonly leaseToken: string,
    private progress: GenerationProgress,
    private readonly stopping?: AbortSignal,
  ) {}

  /** The last user whose output was committed (users are taken in id order). */
  get afterUser(): string | undefined {
    return this.progress.after_user ?? undefined;
  }

  get counts(): Record<string, number> {
    return this.progress.counts;
  }

  /** Adds to the counts and moves past `afterUser` (both optional: no change only fences the commit and extends the lease). */
  async advance(tx: Sql, change: { add?: Record<string, number>; afterUser?: string } = {}): Promise<void> {
    this.stopping?.throwIfAborted();
    const counts = { ...this.progress.counts };
    for (const [name, added] of Object.entries(change.add ?? {})) counts[name] = (counts[name] ?? 0) + added;
    const to = { after_user: change.afterUser ?? this.progress.after_user, counts };
    const moved = await generationRuns.advanceRun(tx, this.runId, this.leaseToken, { from: this.progress, to }, this.deps.now(), GENERATION_LEASE_SECONDS);
    if (!moved) throw new LeaseLost();
    this.progress = to;
  }
}
