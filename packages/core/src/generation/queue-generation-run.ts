import { type GenerationRunRecord, type GenerationWork, generationRuns, type Scope, type Sql } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Creates a queued generation run starting from `counts` (with `alsoWrite`, in the same
 * transaction: a review's own record) and tells the orchestrator. The run is committed before the
 * caller answers, so a restart of this process loses nothing: the orchestrator finds it anyway.
 */
export async function queueGenerationRun(
  deps: CoreDeps,
  scope: Scope,
  work: GenerationWork & { counts: Record<string, number> },
  alsoWrite?: (tx: Sql, runId: string) => Promise<void>,
): Promise<GenerationRunRecord> {
  const { counts, ...asked } = work;
  const runId = crypto.randomUUID();
  const run = await deps.db.transaction(async (tx) => {
    const inserted = await generationRuns.insertRun(tx, scope, { ...asked, runId, progress: { after_user: null, counts } }, deps.now());
    await alsoWrite?.(tx, runId);
    return inserted;
  });
  await deps.orchestrator?.schedule("generationRun", scope, runId);
  return run;
}
